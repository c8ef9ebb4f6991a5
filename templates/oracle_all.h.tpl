/* $(do_not_edit) */
/* Every scalar op definition of the '$(name)' catalog, for host code that wants them all
 * (the generated CPU tests, users' own checks). */
#ifndef $(guard)_ORACLE_H
#define $(guard)_ORACLE_H

@ for _, k in ipairs(kernels) do
#include "$(k.oracle_header)"
@ end

#endif
