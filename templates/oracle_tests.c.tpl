/* $(do_not_edit) */
/* CPU tests of the '$(name)' oracle: for every (op, type) with a 'reference', every tuple
 * of the type's edge values through the oracle (a reduction: the edge values folded both
 * ways), compared with the reference evaluated in wide arithmetic
 * (tokitai_hip/codegen/reference.h). Any NaN equals any NaN. For every op under the ulp rule,
 * every tuple of edge values through the host's own evaluation of the expression (the
 * C library's functions in the compute type), measured against the rule's reference
 * under the op's bound (the larger, where the platforms' differ): the special-value
 * rules and the bound hold for a second implementation of the functions. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "$(oracle_header)"
#include "$(compare_header)"
#include "tokitai_hip/codegen/reference.h"

@ local tested = {}
@ local WIDE = { "A", "B", "C" }
@ for _, k in ipairs(kernels) do
@   if k.op.shape == "reduction" and k.reference then
@     tested[#tested + 1] = k
@     local t, S, a = k.type, k.type.c, k.acc
@     -- The reference folds in the accumulator's type, or where the accumulator encodes the
@     -- elements in a domain that is neither theirs nor the output's (amax's integer keys),
@     -- in the output's, against the fold after its post step.
@     local encoded = a.domain ~= t.domain and a.domain ~= k.out_type.domain
@     local r = encoded and k.out_type or a
@     local function wide(x) return x.domain ~= "float" and "__int128" or (x.compute == "double" and "__float128" or "double") end
$(macros(k))
#define A (($(wide(r)))acc_ref)
#define B (($(wide(t)))$(load(t, "e")))
@     if r.domain == "integer" then
#define R(x) (($(r.compute))($(r.unsigned))(unsigned __int128)(x))
@     elseif r.domain == "bool" then
#define R(x) ((x) != 0)
@     else
#define R(x) (($(r.compute))(x))
@     end
/* Folds the edge values forward and backward, the oracle against the reference; the
 * $(encoded and "outputs" or "accumulators") are compared. */
static void test_$(k.id)(void **state)
{
    (void)state;
    const $(S) edges[] = { $(table.concat(t.edges, ", ")) };
    const size_t count = sizeof edges / sizeof edges[0];
    for (int backward = 0; backward < 2; ++backward) {
        $(a.compute) acc = $(k.identity_fn)();
@     if encoded then
        $(r.compute) acc_ref = $(k.post_fn)(acc, ($(a.compute))0);
@     else
        $(r.compute) acc_ref = acc;
@     end
        for (size_t i = 0; i < count; ++i) {
            const $(S) e = edges[backward ? count - 1 - i : i];
            acc = $(k.oracle)(acc, $(k.map_fn)($(load(t, "e"))));
            acc_ref = $(k.reference);
        }
        const $(r.c) got = $(store(r, encoded and (k.post_fn .. "(acc, (" .. a.compute .. ")count)") or "acc")), want = $(store(r, "acc_ref"));
        if (!$(prefix)_same_$(r.name)(got, want)) {
            char sg[64], sw[64];
            $(prefix)_format_$(r.name)(sg, sizeof sg, got);
            $(prefix)_format_$(r.name)(sw, sizeof sw, want);
            fail_msg("$(k.op.name)_$(t.name) of the edge values (%s) = %s, the reference says %s",
                backward ? "backward" : "forward", sg, sw);
        }
    }
}
#undef A
#undef B
#undef R
$(unmacros(k))

@   elseif k.op.shape == "elementwise" then
@     -- Every tuple of the arguments' edge values (each its own type's), through each
@     -- output's host evaluation, against its reference: under the ulp rule the rule's
@     -- reference within the bound; an exact output with a 'reference' that expression in
@     -- wide arithmetic. Outputs of neither kind are not tested here.
@     local checked = {}
@     for _, o in ipairs(k.outputs) do
@       if o.compare == "ulp" or o.reference then checked[#checked + 1] = o end
@     end
@     if #checked > 0 then
@       tested[#tested + 1] = k
@       local store_args, ref_args = {}, {}
@       for i, x in ipairs(k.args) do
@         store_args[i] = "v_" .. x.name
@         ref_args[i] = "(" .. (x.type.domain == "float" and x.type.reference or x.type.compute) .. ")" .. load(x.type, "v_" .. x.name)
@       end
$(macros(k))
@       -- The wide values a reference names: A, B, C (and UA, UB, UC) in the short form,
@       -- the operands' own names otherwise.
@       local wide_names = {}
@       for i, x in ipairs(k.args) do
@         local name = k.op.short and WIDE[i] or x.name
@         wide_names[#wide_names + 1] = name
@         if x.type.domain == "float" then
#define $(name) (($(x.type.compute == "double" and "__float128" or "double"))$(load(x.type, "v_" .. x.name)))
@         else
#define $(name) ((__int128)v_$(x.name))
@           if k.op.short and x.type.domain == "integer" then
@             wide_names[#wide_names + 1] = "U" .. name
#define U$(name) ((__int128)(U)v_$(x.name))
@           end
@         end
@       end
static void test_$(k.id)(void **state)
{
    (void)state;
@       for _, x in ipairs(k.args) do
    static const $(x.type.c) e_$(x.name)[] = { $(edge_list(x.type)) };
@       end
    size_t total = 1;
@       for _, x in ipairs(k.args) do
    total *= sizeof e_$(x.name) / sizeof e_$(x.name)[0];
@       end
    for (size_t pick = 0; pick < total; ++pick) { /* every tuple of edge values */
        size_t rest = pick;
@       for _, x in ipairs(k.args) do
        const $(x.type.c) v_$(x.name) = e_$(x.name)[rest % (sizeof e_$(x.name) / sizeof e_$(x.name)[0])];
        rest /= sizeof e_$(x.name) / sizeof e_$(x.name)[0];
@       end
        char args[$(#k.args) * 80] = "";
        size_t len = 0;
@       for j, x in ipairs(k.args) do
        {
            char one[64];
            $(prefix)_format_$(x.type.name)(one, sizeof one, v_$(x.name));
            const int w = $(prefix)_detail(args + len, sizeof args - len, "%s%s", $(j > 1 and '", "' or '""'), one);
            len += w > 0 && (size_t)w < sizeof args - len ? (size_t)w : 0;
        }
@       end
@       for _, o in ipairs(checked) do
@         local t, S = o.type, o.type.c
        {
            const $(S) got = $(o.fn)($(table.concat(store_args, ", ")));
            char sg[64];
            $(prefix)_format_$(t.name)(sg, sizeof sg, got);
@         if o.compare == "ulp" then
@           local R = t.reference
            const $(R) want = $(o.reference_fn)($(table.concat(ref_args, ", ")));
            const $(R) error = $(prefix)_ulp_error_$(t.name)($(load(t, "got")), want);
@           if o.atol then
            const $(R) d = ($(R))$(load(t, "got")) - want;
            if (!(error <= $(ops_format_ulps(o.ulps_max))) && !(d <= $(ops_format_atol(o.atol)) && -d <= $(ops_format_atol(o.atol))))
@           else
            if (!(error <= $(ops_format_ulps(o.ulps_max))))
@           end
                fail_msg("$(k.op.name)_$(k.label)(%s) = %s on the host, %.3Lg ulps from the reference "
                    "%.21Lg (bound $(ops_format_ulps(o.ulps_max)))", args, sg, (long double)error, (long double)want);
@         else
@           if t.domain == "integer" then
#define R(x) (($(t.compute))($(t.unsigned))(unsigned __int128)(x))
@           elseif t.domain == "bool" then
#define R(x) ((x) != 0)
@           else
#define R(x) $(store(t, "(" .. t.compute .. ")(x)"))
@           end
            const $(S) want = $(o.reference);
#undef R
            if (!$(prefix)_same_$(t.name)(got, want)) {
                char sw[64];
                $(prefix)_format_$(t.name)(sw, sizeof sw, want);
                fail_msg("$(k.op.name)_$(k.label)(%s)$(#k.outputs > 1 and (" " .. o.name) or "") = %s, the reference says %s", args, sg, sw);
            }
@         end
        }
@       end
    }
}
@       for _, name in ipairs(wide_names) do
#undef $(name)
@       end
$(unmacros(k))

@     end
@   end
@ end
int main(void)
{
    const struct CMUnitTest tests[] = {
@ for _, k in ipairs(tested) do
        cmocka_unit_test(test_$(k.id)),
@ end
    };
    return cmocka_run_group_tests_name("$(name)_oracle", tests, NULL, NULL);
}
