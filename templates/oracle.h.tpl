/* $(do_not_edit) */
/* The scalar definition of every op in this catalog. The same inline functions are
 * compiled into the device kernels and into the CPU oracle that checks them, so the
 * op is written once; the oracle is the semantic authority. */
#ifndef $(guard)_ORACLE_H
#define $(guard)_ORACLE_H

#include "tokitai_hip/scalar.h"

@ for _, k in ipairs(kernels) do
/* $(k.op.name) $(k.type.name): $(k.op.semantics) ($(k.op_file)) */
@   if k.op.arity == 2 then
TKH_HD static inline $(k.type.c) $(k.oracle)($(k.type.c) a, $(k.type.c) b)
@   else
TKH_HD static inline $(k.type.c) $(k.oracle)($(k.type.c) a)
@   end
{
    typedef $(k.type.c) T;
    typedef $(k.type.unsigned) U;
    return (T)($(k.expr));
}

@ end
#endif
