/* The ulp rule's absolute floor at its edges, on the CPU (no GPU needed): triple_floor's
 * check (3a, within 0.5 ulps or 2^-144) given results worked out by hand. Exactly at the
 * floor passes on either side, one subnormal step beyond fails, a wrong zero sign within
 * the floor passes, a NaN never does, and above the subnormals the floor does not rescue
 * an ulp off; the registry and the failure's words state the floor. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tight/tight_ops.h"
#include "tokitai_hip/tokitai_hip.h"

static int failures;

/* One output for input a: whether the check passes it, against 'want'. */
static void expect(const tkh_kernel_info *k, float a, float got, int want, const char *what)
{
    const void *in[1] = { &a }, *out[1] = { &got };
    tkh_check_note note;
    memset(&note, 0, sizeof note);
    const int passed = k->check(in, out, NULL, 1, 0, 0, &note) == 1;
    if (passed != want) {
        printf("FAIL %s: a = %a, got %a: %s (%s)\n", what, a, got, passed ? "passed" : "failed", note.detail);
        ++failures;
    } else {
        printf("ok   %s%s%s\n", what, passed ? "" : ": ", passed ? "" : note.detail);
    }
}

int main(void)
{
    const tkh_kernel_info *k = tkh_registry_find(tight_registry_tight(), "triple_floor", "f32");
    if (k == NULL || k->outputs[0].abs_tolerance != 0x1p-144 || k->abs_tolerance != 0x1p-144
        || strstr(k->comparison, "atol = 4.484155085839415e-44") == NULL) {
        printf("FAIL registry: the floor is not stated (%s)\n", k ? k->comparison : "no kernel");
        return 1;
    }
    const float step = 0x1p-149f, floor_ = 0x1p-144f; /* the smallest subnormal; the floor */
    const float a = 0x1p-140f, r = 0x3p-140f;        /* r = 3a exactly, a subnormal */
    expect(k, a, r, 1, "the exact result");
    expect(k, a, r + floor_, 1, "at the floor above");
    expect(k, a, r - floor_, 1, "at the floor below");
    expect(k, a, r + floor_ + step, 0, "one step beyond the floor above");
    expect(k, a, r - floor_ - step, 0, "one step beyond the floor below");
    expect(k, -step, 0.0f, 1, "+0 for -3 2^-149: within the floor, either zero's sign");
    expect(k, a, NAN, 0, "NaN for a finite result");
    expect(k, 1.0f, nextafterf(3.0f, 4.0f), 0, "an ulp off at 3: the floor does not reach it");
    expect(k, INFINITY, INFINITY, 1, "inf for inf");
    expect(k, 1.0f, INFINITY, 0, "inf for 3");
    /* the words of a failure name the floor */
    const float got = r + floor_ + step, in1 = a;
    const void *in[1] = { &in1 }, *out[1] = { &got };
    tkh_check_note note;
    memset(&note, 0, sizeof note);
    (void)k->check(in, out, NULL, 1, 0, 0, &note);
    if (strstr(note.detail, "or atol = 4.484155085839415e-44 of") == NULL) {
        printf("FAIL the message does not name the floor: %s\n", note.detail);
        ++failures;
    }
    printf("%d failures\n", failures);
    return failures != 0;
}
