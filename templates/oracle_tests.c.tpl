/* $(do_not_edit) */
/* CPU tests of the '$(name)' oracle: for every (op, type) with a 'reference', every pair
 * of the type's edge values through the oracle, compared with the reference evaluated in
 * wide arithmetic (tokitai_hip/reference.h). Any NaN equals any NaN. */
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
@ for _, k in ipairs(kernels) do
@   if k.reference then
@     tested[#tested + 1] = k
@     local t, S = k.type, k.type.c
@     local binary = k.op.arity == 2
$(macros(t))
@     if t.domain == "integer" then
#define A ((__int128)a)
#define B ((__int128)b)
#define UA ((__int128)(U)a)
#define UB ((__int128)(U)b)
#define R(x) ((T)(U)(unsigned __int128)(x))
@     else
@       local RT = t.compute == "double" and "__float128" or "double"
#define A (($(RT))$(load(t, "a")))
#define B (($(RT))$(load(t, "b")))
#define R(x) $(store(t, "(T)(x)"))
@     end
static void test_$(k.id)(void **state)
{
    (void)state;
    const $(S) edges[] = { $(table.concat(t.edges, ", ")) };
    const size_t count = sizeof edges / sizeof edges[0];
    for (size_t i = 0; i < count; ++i) {
@     if binary then
        for (size_t j = 0; j < count; ++j) {
            const $(S) a = edges[i], b = edges[j];
            const $(S) got = $(k.oracle)(a, b), want = $(k.reference);
            if (!$(prefix)_same_$(t.name)(got, want)) {
                char sa[64], sb[64], sg[64], sw[64];
                $(prefix)_format_$(t.name)(sa, sizeof sa, a);
                $(prefix)_format_$(t.name)(sb, sizeof sb, b);
                $(prefix)_format_$(t.name)(sg, sizeof sg, got);
                $(prefix)_format_$(t.name)(sw, sizeof sw, want);
                fail_msg("$(k.op.name)_$(t.name)(%s, %s) = %s, the reference says %s", sa, sb, sg, sw);
            }
        }
@     else
        const $(S) a = edges[i];
        const $(S) got = $(k.oracle)(a), want = $(k.reference);
        if (!$(prefix)_same_$(t.name)(got, want)) {
            char sa[64], sg[64], sw[64];
            $(prefix)_format_$(t.name)(sa, sizeof sa, a);
            $(prefix)_format_$(t.name)(sg, sizeof sg, got);
            $(prefix)_format_$(t.name)(sw, sizeof sw, want);
            fail_msg("$(k.op.name)_$(t.name)(%s) = %s, the reference says %s", sa, sg, sw);
        }
@     end
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
