/* $(do_not_edit) */
/* The scalar definition of every op in this catalog. The same inline functions are
 * compiled into the device kernels and into the CPU oracle that checks them, so each op
 * is written once; the oracle is the semantic authority. T, U, W, TMIN, TMAX and BITS
 * are defined around each function only (see ops/core.lua). */
#ifndef $(guard)_ORACLE_H
#define $(guard)_ORACLE_H

#include "tokitai_hip/scalar.h"

@ for _, k in ipairs(kernels) do
@   local t = k.type
/* $(k.op.name) $(t.name): $(k.op.semantics) ($(k.op.where)) */
$(macros(t))
@   if k.op.shape == "reduction" then
TKH_HD static inline $(t.compute) $(k.identity_fn)(void)
{
    return (T)($(k.identity));
}

TKH_HD static inline $(t.compute) $(k.oracle)($(t.compute) a, $(t.compute) b)
{
    return (T)($(k.expr));
}
@   elseif k.op.arity == 2 then
TKH_HD static inline $(t.c) $(k.oracle)($(t.c) a_in, $(t.c) b_in)
{
    const T a = $(load(t, "a_in")), b = $(load(t, "b_in"));
    return $(store(t, "(T)(" .. k.expr .. ")"));
}
@   else
TKH_HD static inline $(t.c) $(k.oracle)($(t.c) a_in)
{
    const T a = $(load(t, "a_in"));
    return $(store(t, "(T)(" .. k.expr .. ")"));
}
@   end
$(unmacros(t))

@ end
#endif
