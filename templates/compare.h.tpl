/* $(do_not_edit) */
/* Host-side comparison and printing of each scalar type of this catalog, for the oracle
 * checks in the stubs and for tests. Floats compare bit for bit, except that any NaN
 * equals any NaN. */
#ifndef $(guard)_COMPARE_H
#define $(guard)_COMPARE_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tokitai_hip/scalar.h"

@ for _, t in ipairs(types_used) do
@   if t.domain == "integer" then
static inline int $(prefix)_same_$(t.name)($(t.c) x, $(t.c) y)
{
    return x == y;
}

static inline void $(prefix)_format_$(t.name)(char *buf, size_t size, $(t.c) v)
{
    snprintf(buf, size, "%" $(t.fmt), v);
}
@   else
/* On the bits, branch-free, so that the checks' loops vectorize: NaN is above infinity. */
static inline int $(prefix)_same_$(t.name)($(t.c) x, $(t.c) y)
{
    $(t.bits_c) bx, by;
    memcpy(&bx, &x, sizeof bx);
    memcpy(&by, &y, sizeof by);
    const $(t.bits_c) magnitude = ($(t.bits_c))~(($(t.bits_c))1 << $(t.bits - 1));
    return (bx == by) | (((bx & magnitude) > $(t.inf_bits)) & ((by & magnitude) > $(t.inf_bits)));
}

static inline void $(prefix)_format_$(t.name)(char *buf, size_t size, $(t.c) v)
{
    unsigned char bytes[sizeof v];
    memcpy(bytes, &v, sizeof v);
    int len = snprintf(buf, size, "%.17g (0x", (double)$(load(t, "v")));
    for (size_t i = sizeof v; i > 0 && len > 0 && (size_t)len < size; --i)
        len += snprintf(buf + len, size - (size_t)len, "%02x", bytes[i - 1]);
    if (len > 0 && (size_t)len < size)
        snprintf(buf + len, size - (size_t)len, ")");
}
@   end

@ end
#endif
