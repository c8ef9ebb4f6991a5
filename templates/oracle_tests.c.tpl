/* $(do_not_edit) */
/* CPU tests of the '$(name)' oracle: for every (op, type) with a 'reference', every tuple
 * of the type's edge values through the oracle (a reduction: the edge values folded both
 * ways), compared with the reference evaluated in wide arithmetic
 * (tokitai_hip/reference.h). Any NaN equals any NaN. For every op under the ulp rule,
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
#include "tokitai_hip/reference.h"

@ local tested = {}
@ local WIDE = { "A", "B", "C" }
@ for _, k in ipairs(kernels) do
@   if k.reference and k.op.shape == "reduction" then
@     tested[#tested + 1] = k
@     local t, S = k.type, k.type.c
@     local WT = t.domain == "integer" and "__int128" or (t.compute == "double" and "__float128" or "double")
$(macros(t))
#define A (($(WT))acc_ref)
#define B (($(WT))$(load(t, "e")))
@     if t.domain == "integer" then
#define UA ((__int128)(U)acc_ref)
#define UB ((__int128)(U)e)
#define R(x) ((T)(U)(unsigned __int128)(x))
@     else
#define R(x) ((T)(x))
@     end
/* Folds the edge values forward and backward, the oracle against the reference. */
static void test_$(k.id)(void **state)
{
    (void)state;
    const $(S) edges[] = { $(table.concat(t.edges, ", ")) };
    const size_t count = sizeof edges / sizeof edges[0];
    for (int backward = 0; backward < 2; ++backward) {
        $(t.compute) acc = $(k.identity_fn)(), acc_ref = $(k.identity_fn)();
        for (size_t i = 0; i < count; ++i) {
            const $(S) e = edges[backward ? count - 1 - i : i];
            acc = $(k.oracle)(acc, $(load(t, "e")));
            acc_ref = $(k.reference);
        }
        const $(S) got = $(store(t, "acc")), want = $(store(t, "acc_ref"));
        if (!$(prefix)_same_$(t.name)(got, want)) {
            char sg[64], sw[64];
            $(prefix)_format_$(t.name)(sg, sizeof sg, got);
            $(prefix)_format_$(t.name)(sw, sizeof sw, want);
            fail_msg("$(k.op.name)_$(t.name) of the edge values (%s) = %s, the reference says %s",
                backward ? "backward" : "forward", sg, sw);
        }
    }
}
#undef A
#undef B
@     if t.domain == "integer" then
#undef UA
#undef UB
@     end
#undef R
$(unmacros(t))

@   elseif k.compare == "ulp" then
@     tested[#tested + 1] = k
@     local t, S, arity, R = k.type, k.type.c, k.op.arity, k.type.reference
@     local args, refs = {}, {}
@     for i = 1, arity do
@       args[i] = "x[" .. (i - 1) .. "]"
@       refs[i] = "(" .. R .. ")" .. load(t, "x[" .. (i - 1) .. "]")
@     end
static void test_$(k.id)(void **state)
{
    (void)state;
    const $(S) edges[] = { $(table.concat(t.edges, ", ")) };
    const size_t count = sizeof edges / sizeof edges[0];
    size_t total = 1;
    for (int j = 0; j < $(arity); ++j)
        total *= count;
    for (size_t pick = 0; pick < total; ++pick) { /* every tuple of edge values */
        $(S) x[$(arity)];
        for (size_t j = 0, rest = pick; j < $(arity); ++j, rest /= count)
            x[j] = edges[rest % count];
        const $(S) got = $(k.oracle)($(table.concat(args, ", ")));
        const $(R) want = $(k.reference_fn)($(table.concat(refs, ", ")));
        const $(R) error = $(prefix)_ulp_error_$(t.name)($(load(t, "got")), want);
        if (!(error <= $(ops_format_ulps(k.ulps_max)))) {
            char args[$(arity) * 66], sg[64];
            $(prefix)_format_list_$(t.name)(args, sizeof args, x, $(arity));
            $(prefix)_format_$(t.name)(sg, sizeof sg, got);
            fail_msg("$(k.op.name)_$(t.name)(%s) = %s on the host, %.3Lg ulps from the reference "
                "%.21Lg (bound $(ops_format_ulps(k.ulps_max)))", args, sg, (long double)error, (long double)want);
        }
    }
}

@   elseif k.reference then
@     tested[#tested + 1] = k
@     local t, S, arity = k.type, k.type.c, k.op.arity
$(macros(t))
@     for i, o in ipairs(k.operands) do
@       if t.domain == "integer" then
#define $(WIDE[i]) ((__int128)$(o))
#define U$(WIDE[i]) ((__int128)(U)$(o))
@       else
#define $(WIDE[i]) (($(t.compute == "double" and "__float128" or "double"))$(load(t, o)))
@       end
@     end
@     if t.domain == "integer" then
#define R(x) ((T)(U)(unsigned __int128)(x))
@     else
#define R(x) $(store(t, "(T)(x)"))
@     end
static void test_$(k.id)(void **state)
{
    (void)state;
    const $(S) edges[] = { $(table.concat(t.edges, ", ")) };
    const size_t count = sizeof edges / sizeof edges[0];
    size_t total = 1;
    for (int j = 0; j < $(arity); ++j)
        total *= count;
    for (size_t pick = 0; pick < total; ++pick) { /* every tuple of edge values */
        $(S) x[$(arity)];
        for (size_t j = 0, rest = pick; j < $(arity); ++j, rest /= count)
            x[j] = edges[rest % count];
@     local decl = {}
@     for i, o in ipairs(k.operands) do decl[i] = o .. " = x[" .. (i - 1) .. "]" end
        const $(S) $(table.concat(decl, ", "));
        const $(S) got = $(k.oracle)($(table.concat(k.operands, ", "))), want = $(k.reference);
        if (!$(prefix)_same_$(t.name)(got, want)) {
            char args[$(arity) * 66], sg[64], sw[64];
            $(prefix)_format_list_$(t.name)(args, sizeof args, x, $(arity));
            $(prefix)_format_$(t.name)(sg, sizeof sg, got);
            $(prefix)_format_$(t.name)(sw, sizeof sw, want);
            fail_msg("$(k.op.name)_$(t.name)(%s) = %s, the reference says %s", args, sg, sw);
        }
    }
}
@     for i = 1, arity do
#undef $(WIDE[i])
@       if t.domain == "integer" then
#undef U$(WIDE[i])
@       end
@     end
#undef R
$(unmacros(t))

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
