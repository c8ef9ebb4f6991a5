/* $(do_not_edit) */
/* The scalar definition of $(k.op.name) over $(k.type.name). The same inline function is
 * compiled into the device kernel and into the CPU oracle that checks it, so the op is
 * written once; the oracle is the semantic authority. T, U, W, TMIN, TMAX and BITS are
 * defined around the function only (see ops/core.lua). */
#ifndef $(guard)_ORACLE_$(k.id:upper())_H
#define $(guard)_ORACLE_$(k.id:upper())_H

#include "tokitai_hip/scalar.h"

@ local t = k.type
@ -- The op's steps, each a constant of the type computed in, then its expression.
@ local function body(indent)
@   for _, s in ipairs(k.steps) do
$(indent)const T $(s.name) = (T)($(s.expr));
@   end
$(indent)return (T)($(k.expr));
@ end
/* $(k.op.name) $(t.name): $(k.op.semantics) ($(k.op_file)) */
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
@   else
@     local args, loads, wide_args, wide_loads = {}, {}, {}, {}
@     for i, o in ipairs(k.operands) do
@       args[i], loads[i] = t.c .. " " .. o .. "_in", o .. " = " .. load(t, o .. "_in")
@       wide_args[i], wide_loads[i] = "T " .. o, load(t, o .. "_in")
@     end
@     if t.load then
/* Computed in $(t.compute), before the rounding to $(t.name): the CPU check converts whole
 * blocks of operands and results at once around it. */
TKH_HD static inline T $(k.oracle)_wide($(table.concat(wide_args, ", ")))
{
@       body("    ")
}

TKH_HD static inline $(t.c) $(k.oracle)($(table.concat(args, ", ")))
{
    return $(store(t, k.oracle .. "_wide(" .. table.concat(wide_loads, ", ") .. ")"));
}
@     else
TKH_HD static inline $(t.c) $(k.oracle)($(table.concat(args, ", ")))
{
    const T $(table.concat(loads, ", "));
@       body("    ")
}
@     end
@   end
$(unmacros(t))
@ if k.compare == "ulp" then
@   local R, args = t.reference, {}
@   for i, o in ipairs(k.operands) do args[i] = R .. " " .. o end

#if !defined(__HIPCC__) && !defined(__CUDACC__)
@   if k.reference then
/* The ulp rule's reference (host only): the op's reference expression, the function its
 * expression approximates, evaluated in $(R) and not rounded to $(t.name); the check
 * measures the device's result against it. */
@   else
/* The ulp rule's reference (host only): the same expression evaluated in $(R), and not
 * rounded to $(t.name); the check measures the device's result against it. */
@   end
#define T $(R)
static inline $(R) $(k.reference_fn)($(table.concat(args, ", ")))
{
@   if k.reference then
    return (T)($(k.reference));
@   else
@     body("    ")
@   end
}
#undef T
#endif
@ end

#endif
