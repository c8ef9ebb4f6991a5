/* $(do_not_edit) */
/* The scalar definition of $(k.op.name) over $(k.label). The same inline functions are
 * compiled into the device kernel and into the CPU oracle that checks it, so the op is
 * written once; the oracle is the semantic authority. The placeholders (and T's U, W,
 * TMIN, TMAX and BITS) are defined around the functions only (docs/op-files.md). */
#ifndef $(guard)_ORACLE_$(k.id:upper())_H
#define $(guard)_ORACLE_$(k.id:upper())_H

#include "tokitai_hip/codegen/scalar.h"

@ local t = k.type
@ -- The C type an operand is computed in: its compute type, or under the ulp rule's
@ -- reference the wider type of a float.
@ local function ctype(x, wide)
@   return wide and x.domain == "float" and x.reference or x.compute
@ end
@ -- The op's steps, each a constant of its type, then one output's expression.
@ local function body(indent, o, wide, expr)
@   for _, s in ipairs(k.steps) do
$(indent)const $(ctype(s.type, wide)) $(s.name) = ($(ctype(s.type, wide)))($(s.expr));
@   end
$(indent)return ($(ctype(o.type, wide)))($(expr or o.expr));
@ end
/* $(k.op.name) $(k.label): $(k.op.semantics) ($(k.op_file)) */
$(macros(k))
@ if k.op.shape == "reduction" and k.index then
@   local A = k.acc.compute
/* Index-aware: a pick is an element's value (ACC) and its index (-1: none yet). The
 * better of two picks wins; of two where neither is better, the lower index. So the
 * result does not depend on the order of the folds. */
typedef struct $(k.pick) {
    $(A) value;
    int64_t index;
} $(k.pick);

/* Whether b is preferred to a. */
TKH_HD static inline int $(k.better_fn)($(A) a, $(A) b)
{
    return ($(k.better));
}

TKH_HD static inline $(k.pick) $(k.identity_fn)(void)
{
    const $(k.pick) none = { ($(A))0, -1 };
    return none;
}

TKH_HD static inline $(k.pick) $(k.map_fn)($(t.compute) x, int64_t index)
{
    const $(k.pick) p = { ($(A))x, index };
    return p;
}

/* One thread's step over its elements, which come in increasing index order: a later
 * element replaces the pick only when it is better (cheaper than the combine). */
TKH_HD static inline $(k.pick) $(k.step_fn)($(k.pick) acc, $(t.compute) x, int64_t index)
{
    if (acc.index < 0 || $(k.better_fn)(acc.value, ($(A))x)) {
        acc.value = ($(A))x;
        acc.index = index;
    }
    return acc;
}

TKH_HD static inline $(k.pick) $(k.oracle)($(k.pick) a, $(k.pick) b)
{
    if (a.index < 0 || b.index < 0)
        return a.index < 0 ? b : a;
    if ($(k.better_fn)(a.value, b.value))
        return b;
    if ($(k.better_fn)(b.value, a.value))
        return a;
    return b.index < a.index ? b : a;
}
@ elseif k.op.shape == "matmul" then
@   local params = { "ACC acc" }
@   for _, c in ipairs(k.extras) do params[#params + 1] = "ACC " .. c.name end
@   for _, sc in ipairs(k.scalars) do params[#params + 1] = sc.type.compute .. " " .. sc.name end
/* The epilogue of each output: the sum acc, the extra inputs there, the scalars; the kernel
 * evaluates it in ACC and stores it as OUT. The oracle carries it with its error bound
 * (templates/matmul.c.tpl). */
TKH_HD static inline ACC $(k.oracle)($(table.concat(params, ", ")))
{
@   for _, c in ipairs(k.extras) do
    (void)$(c.name);
@   end
@   for _, sc in ipairs(k.scalars) do
    (void)$(sc.name);
@   end
    return (ACC)($(k.epilogue));
}
@ elseif k.op.shape == "normalization" then
/* A normalization's expressions are written into its kernel and, with their error bounds,
 * into its oracle (templates/normalization.hip.tpl, normalization.c.tpl). */
@ elseif k.op.shape == "reduction" then
@   local A, O = k.acc.compute, k.out_type.compute
/* In four parts: identity and combine of accumulators (ACC), the map of an element to
 * one, and the post step of the final accumulator and the count n to the output (OUT). */
TKH_HD static inline $(A) $(k.identity_fn)(void)
{
    return (ACC)($(k.identity));
}

TKH_HD static inline $(A) $(k.map_fn)($(t.compute) x)
{
    return (ACC)($(k.map));
}

TKH_HD static inline $(A) $(k.oracle)($(A) a, $(A) b)
{
    return (ACC)($(k.outputs[1].expr));
}

TKH_HD static inline $(O) $(k.post_fn)($(A) a, $(A) n)
{
    (void)n;
    return (OUT)($(k.post));
}
@ else
@   local wide_args, args, loads, unused = {}, {}, {}, {}
@   for i, x in ipairs(k.args) do
@     unused[i] = "(void)" .. x.name .. ";"
@     wide_args[i] = x.type.compute .. " " .. x.name
@     args[i] = x.type.c .. " " .. x.name .. "_in"
@     loads[i] = load(x.type, x.name .. "_in")
@   end
@   for _, o in ipairs(k.outputs) do
/* $(o.name), computed in $(o.type.compute) before it is stored as $(o.type.name): the CPU check
 * converts whole blocks of operands and results around it. */
TKH_HD static inline $(o.type.compute) $(o.fn)_wide($(table.concat(wide_args, ", ")))
{
@     if #k.outputs > 1 then
    $(table.concat(unused, " ")) /* each output may use only some */
@     end
@     body("    ", o)
}

TKH_HD static inline $(o.type.c) $(o.fn)($(table.concat(args, ", ")))
{
    return $(store(o.type, o.fn .. "_wide(" .. table.concat(loads, ", ") .. ")"));
}

@   end
@ end
$(unmacros(k))
@ for _, o in ipairs(k.outputs) do
@   if o.compare == "ulp" then
@     local R, args = o.type.reference, {}
@     for i, x in ipairs(k.args) do args[i] = ctype(x.type, true) .. " " .. x.name end

#if !defined(__HIPCC__) && !defined(__CUDACC__)
@     if o.reference then
/* The ulp rule's reference for $(o.name) (host only): the op's reference expression, the
 * function its expression approximates, evaluated in $(R) and not rounded to $(o.type.name);
 * the check measures the device's result against it. */
@     else
/* The ulp rule's reference for $(o.name) (host only): the same expression evaluated in $(R)
 * (every float operand widened), and not rounded to $(o.type.name); the check measures the
 * device's result against it. */
@     end
$(macros(k, true))
static inline $(R) $(o.reference_fn)($(table.concat(args, ", ")))
{
@     if o.reference then
    return ($(R))($(o.reference));
@     else
@       body("    ", o, true)
@     end
}
$(unmacros(k))
#endif
@   end
@ end

#endif
