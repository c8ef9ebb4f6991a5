/* $(do_not_edit) */
/* Host entry points of the $(k.op.name) reduction over $(k.type.name) and the oracle check. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "$(ops_header)"
#include "$(k.oracle_header)"
#include "$(compare_header)"

extern TKH_HIDDEN const tkh_kernel_info $(k.info);

@ local S, A, t = k.type.c, k.acc.compute, k.type
@ local O, ot = k.out_type.c, k.out_type
@ -- An index-aware reduction (argmin, argmax) maps each element with its index into a
@ -- pick (value, index) and writes two outputs.
@ if k.index then A = k.pick end
@ if k.compare == "sum_bound" then
@   local acc_mant = t.compute == "double" and 53 or 24
@   local V = 16 // (t.bits // 8)
@   local R = t.compute == "double" and "long double" or "double"
@   local twosum = t.compute == "double"
@   local squared = k.map == "x * x"
@   local post = k.bounded_post
enum { BLOCK = 256 };

/* Float sums depend on the order of additions, so the device result is compared with an
 * accurate sum within a bound: each path of the device's tree adds at most
 * depth = ceil(n / (grid * block)) + $(V + 1) + ceil(grid / block) + 2 log2(block) terms (a
 * thread's slice, rounded up to whole $(V)-element vectors plus one tail element; the block
 * tree; the final block), and each addition errs by at most u = 2^-$(acc_mant) of the running
 * magnitude, so |device - sum| <= depth * u * sum|x| + the final rounding to $(t.name) +
 * underflow. Any NaN, or both infinities, must give NaN; one infinity must come out as
 * itself. The reference is a sum folded in parts that merge in long double, compensated:
@   if twosum then
 * eight TwoSum lanes in double per part (the bound adds the compensated sum's own
 * error), or, for a part holding an
@   else
 * eight plain lanes in double per part (the elements are exact in double, and the bound
 * adds the lanes' own error), or, for a part holding an
@   end
 * infinity or NaN or whose sum leaves double's range, Kahan-Babuska in $(R). */
TKH_HIDDEN void $(k.check)_merge(tkh_fold *state, const tkh_fold *later)
{
    const long double a = state->sum, b = later->sum, s = a + b;
    state->comp += later->comp + (fabsl(a) >= fabsl(b) ? (a - s) + b : (b - s) + a);
    state->sum = s;
    state->mag += later->mag;
    state->nan |= later->nan;
    state->pos_inf |= later->pos_inf;
    state->neg_inf |= later->neg_inf;
}

/* The careful fold, for parts the fast one gives up on: infinities and NaN are noted
 * apart, and the sum runs in $(R). */
static void fold_careful(const $(S) *x, size_t count, tkh_fold *state)
{
    $(R) sum = 0, comp = 0, mag = 0;
    int nan = 0, pos_inf = 0, neg_inf = 0;
    for (size_t i = 0; i < count; ++i) {
        const $(R) x_i = ($(R))$(load(t, "x[i]"));
        const $(R) v = $(squared and "x_i * x_i" or "x_i");
        if (isnan(v)) {
            nan = 1;
        } else if (isinf(v)) {
            pos_inf |= v > 0;
            neg_inf |= v < 0;
        } else {
            const $(R) s = sum + v;
            comp += fabs(sum) >= fabs(v) ? (sum - s) + v : (v - s) + sum;
            sum = s;
            mag += fabs(v);
        }
    }
    const tkh_fold part = { .sum = sum, .comp = comp, .mag = mag, .nan = nan, .pos_inf = pos_inf,
        .neg_inf = neg_inf };
    $(k.check)_merge(state, &part);
}

/* Four doubles added side by side (GNU C vector extension: one instruction per operation
 * with AVX, two with SSE2, plain code elsewhere). */
typedef double lanes __attribute__((vector_size(4 * sizeof(double))));
typedef int64_t lane_bits __attribute__((vector_size(4 * sizeof(double))));

@   if twosum then
/* sum + b per lane; the rounding error of each addition (TwoSum: exact, branch-free) goes
 * to comp, |b| to mag. */
static inline void add_lanes(lanes *sum, lanes *comp, lanes *mag, lanes b)
{
    const lanes a = *sum, s = a + b, b_part = s - a;
    *comp += (a - (s - b_part)) + (b - b_part);
    *sum = s;
    *mag += (lanes)((lane_bits)b & INT64_MAX);
}
@   else
/* sum + b per lane, |b| to mag; comp stays 0. A third of TwoSum's work, and precise enough
 * for elements of 24 bits or fewer (see the bound). */
static inline void add_lanes(lanes *sum, lanes *comp, lanes *mag, lanes b)
{
    (void)comp;
    *sum += b;
    *mag += (lanes)((lane_bits)b & INT64_MAX);
}
@   end

/* The fast fold: two sets of four lanes in double, for two independent chains of
 * additions. Returns 0, having folded nothing, when an input is not finite or a sum
 * leaves double's range. One copy per x86-64 level (TKH_CHECK_CLONES). */
TKH_CHECK_CLONES static int fold_fast(const $(S) *x, size_t count, tkh_fold *state)
{
    lanes sum[2] = { { 0 } }, comp[2] = { { 0 } }, mag[2] = { { 0 } };
    for (size_t base = 0; base < count; base += BLOCK) {
        const size_t len = count - base < BLOCK ? count - base : BLOCK;
@   if t.load then
        $(t.compute) v[BLOCK];
        $(t.load)_n(x + base, v, len);
@   else
        const $(S) *v = x + base;
@   end
        size_t i = 0;
        for (; i + 8 <= len; i += 8) {
            const lanes low = { v[i], v[i + 1], v[i + 2], v[i + 3] }, high = { v[i + 4], v[i + 5], v[i + 6], v[i + 7] };
            add_lanes(&sum[0], &comp[0], &mag[0], $(squared and "low * low" or "low"));
            add_lanes(&sum[1], &comp[1], &mag[1], $(squared and "high * high" or "high"));
        }
        for (; i < len; ++i) {
            const lanes one = { v[i] };
            add_lanes(&sum[0], &comp[0], &mag[0], $(squared and "one * one" or "one"));
        }
    }
    int finite = 1;
    for (int j = 0; j < 2; ++j)
        for (int l = 0; l < 4; ++l)
            finite &= isfinite(sum[j][l]) && isfinite(comp[j][l]) && isfinite(mag[j][l]);
    if (!finite)
        return 0;
    for (int j = 0; j < 2; ++j)
        for (int l = 0; l < 4; ++l) {
            const tkh_fold lane = { .sum = sum[j][l], .comp = comp[j][l], .mag = mag[j][l] };
            $(k.check)_merge(state, &lane);
        }
    return 1;
}

TKH_HIDDEN void $(k.check)_fold(const void *input, size_t first, size_t count, tkh_fold *state)
{
    (void)first;
    if (!fold_fast(input, count, state))
        fold_careful(input, count, state);
}

TKH_HIDDEN int $(k.check)_finish(const tkh_fold *state, const void *const *outputs, size_t n,
    unsigned grid, unsigned block, tkh_check_note *note)
{
    const void *out = outputs[0];
    const long double sum = state->sum + state->comp, mag = state->mag;
    const int nan = state->nan, pos_inf = state->pos_inf, neg_inf = state->neg_inf;
    const long double got = (long double)$(load(ot, "((const " .. O .. " *)out)[0]"));
    unsigned levels = 0;
    while ((1u << levels) < block)
        ++levels;
    const long double depth = ceill((long double)n / ((long double)grid * block)) + $(V + 1)
        + ceill((long double)grid / block) + 2.0L * levels;
@   if twosum then
    /* The reference's own error: a compensated sum errs by at most u |S| + (n u)^2 sum|x|
     * (u = 2^-53); the merges in long double by less. */
    const long double reference_error = ldexpl(fabsl(sum), -53)
        + ldexpl((long double)n * (long double)n * mag, -106)$(squared and " + ldexpl(mag, -52) /* squares in double */" or "");
@   else
    /* The reference's own error: at most 2^-53 of the running magnitude for each of the at
     * most n additions in double, and less for each merge in long double. */
    const long double reference_error = ldexpl((long double)n * mag, -52);
@   end
    /* The accumulator's error: the tree's additions, and one rounding of each mapped
     * element when the map squares; then the underflow of partial sums. */
    long double bound = depth * ldexpl(mag, -$(acc_mant)) * (1 + 0x1p-20L)
        + $(squared and ("ldexpl(mag, -" .. acc_mant .. ")") or "0") + ldexpl((long double)n, -$(t.compute == "double" and 1074 or 149))
        + reference_error;
    long double want = sum;
@   if post == "mean" then
    /* a / n: the error divides by n; the division and n's conversion round once each. */
    want = sum / (long double)n;
    bound = bound / (long double)n + 2 * ldexpl(fabsl(want), -$(acc_mant));
@   elseif post == "sqrt" then
    /* sqrt(a): |sqrt(s') - sqrt(s)| <= min(sqrt(|s' - s|), |s' - s| / sqrt(s)); the root
     * rounds once. */
    want = sqrtl(sum > 0 ? sum : 0);
    bound = (want > 0 && bound / want < sqrtl(bound) ? bound / want : sqrtl(bound)) + ldexpl(want, -$(acc_mant));
@   end
    /* The final rounding to $(ot.name), and the smallest subnormal's half. */
    bound += ldexpl(fabsl(want), -$(ot.mantissa))
        + ldexpl(1.0L, -$(ot.name == "f16" and 25 or ot.name == "bf16" and 134 or ot.compute == "double" and 1075 or 150));
    const long double largest = $(ot.name == "f16" and "65504.0L" or ot.name == "bf16" and "0x1.fep127L" or ot.compute == "double" and "(long double)DBL_MAX" or "(long double)FLT_MAX");
    int ok;
    if (nan || (pos_inf && neg_inf))
        ok = isnan(got);
    else if (pos_inf || neg_inf)
        ok = isinf(got) && (got > 0) == (pos_inf != 0);
    else if (isnan(want)) /* the mean of no elements, 0 / 0 */
        ok = isnan(got);
    else if (isinf(got)) /* overflow is right when the result, or a partial sum, may exceed the range */
        ok = fabsl(want) + bound >= largest || mag >= largest;
    else if (isnan(got)) /* inf - inf: partial sums past the range both ways, which needs the
                            elements' magnitudes to reach twice it (less the partials' error) */
        ok = mag * (1 + depth * ldexpl(1.0L, -$(acc_mant))) >= 2 * largest;
    else
        ok = !isnan(got) && fabsl(got - want) <= bound;
    if (ok)
        return 1;
    char g[64];
    $(prefix)_format_$(ot.name)(g, sizeof g, ((const $(O) *)out)[0]);
    $(prefix)_detail(note->detail, sizeof note->detail, "got %s, expected %.21Lg within %.3Lg (n = %zu, depth %.0Lf)",
        g, want, bound, n, depth);
    return 0;
}
@ else
/* $(k.op.name) is exact and independent of the order (the device folds in a tree): parts
 * and lanes fold from the identity, and merge with the same combine step. */
enum { LANES = 64, BLOCK = 256 };
_Static_assert(sizeof($(A)) <= sizeof(((tkh_fold *)0)->acc), "the accumulator fits a tkh_fold");

TKH_HIDDEN void $(k.check)_merge(tkh_fold *state, const tkh_fold *later)
{
    if (!later->started)
        return;
    $(A) a = $(k.identity_fn)(), b;
    if (state->started)
        memcpy(&a, state->acc, sizeof a);
    memcpy(&b, later->acc, sizeof b);
    a = $(k.oracle)(a, b);
    memcpy(state->acc, &a, sizeof a);
    state->started = 1;
}

/* LANES accumulators side by side: the inner loop is a map over lanes, which the
 * compiler vectorizes where the combine step allows it. One copy per x86-64 level
 * (TKH_CHECK_CLONES), static as in the elementwise checks. */
TKH_CHECK_CLONES static void fold_lanes(const $(S) *x, size_t first, size_t count, tkh_fold *state)
{
    (void)first;
    $(A) acc[LANES];
    for (size_t l = 0; l < LANES; ++l)
        acc[l] = $(k.identity_fn)();
    for (size_t base = 0; base < count; base += BLOCK) {
        const size_t len = count - base < BLOCK ? count - base : BLOCK;
@   if t.load then
        $(t.compute) v[BLOCK];
        $(t.load)_n(x + base, v, len);
@   else
        const $(S) *v = x + base;
@   end
        size_t i = 0;
        for (; i + LANES <= len; i += LANES)
            for (size_t l = 0; l < LANES; ++l)
                acc[l] = $(fold_element(k, "acc[l]", "v[i + l]", "first + base + i + l"));
        for (; i < len; ++i)
            acc[0] = $(fold_element(k, "acc[0]", "v[i]", "first + base + i"));
    }
    for (size_t l = 0; l < LANES; ++l) {
        tkh_fold part = { .started = 1 };
        memcpy(part.acc, &acc[l], sizeof acc[l]);
        $(k.check)_merge(state, &part);
    }
}

TKH_HIDDEN void $(k.check)_fold(const void *input, size_t first, size_t count, tkh_fold *state)
{
    fold_lanes(input, first, count, state);
}

TKH_HIDDEN int $(k.check)_finish(const tkh_fold *state, const void *const *outputs, size_t n,
    unsigned grid, unsigned block, tkh_check_note *note)
{
    (void)grid;
    (void)block;
    (void)n; /* only a post step reads it */
    $(A) acc = $(k.identity_fn)();
    if (state->started)
        memcpy(&acc, state->acc, sizeof acc);
@   if k.index then
    /* Both outputs: the value (ties and NaN by the pick's rule) and its index. */
    const $(S) want = $(store(t, "acc.value")), got = ((const $(S) *)outputs[0])[0];
    const int64_t got_index = ((const int64_t *)outputs[1])[0];
    if ($(prefix)_same_$(t.name)(got, want) && got_index == acc.index)
        return 1;
    char g[64], w[64];
    $(prefix)_format_$(t.name)(g, sizeof g, got);
    $(prefix)_format_$(t.name)(w, sizeof w, want);
    $(prefix)_detail(note->detail, sizeof note->detail, "got %s at index %" PRId64 ", expected %s at index %" PRId64,
        g, got_index, w, acc.index);
    return 0;
@   else
    const void *out = outputs[0];
    const $(O) want = $(store(ot, k.post_fn .. "(acc, (" .. A .. ")n)"));
    const $(O) got = ((const $(O) *)out)[0];
    if ($(prefix)_same_$(ot.name)(got, want))
        return 1;
    char g[64], w[64];
    $(prefix)_format_$(ot.name)(g, sizeof g, got);
    $(prefix)_format_$(ot.name)(w, sizeof w, want);
    $(prefix)_detail(note->detail, sizeof note->detail, "got %s, expected %s", g, w);
    return 0;
@   end
}
@ end

/* The whole check on one thread: fold everything, then compare. */
TKH_HIDDEN size_t $(k.check)(const void *const *inputs, const void *const *outputs,
    const void *const *scalars, size_t n, unsigned grid, unsigned block, tkh_check_note *note)
{
    (void)scalars;
    tkh_fold state = { 0 };
    $(k.check)_fold(inputs[0], 0, n, &state);
    return $(k.check)_finish(&state, outputs, n, grid, block, note) ? n : 0;
}

tkh_status $(k.tensor_entry)(tkh_context *ctx, $(k.tensor_params), const int64_t *axes,
    unsigned axis_count, int keepdims, tkh_stream stream, tkh_report *report)
{
    const DLTensor *inputs[1] = { in };
    const DLTensor *outputs[$(#k.outputs)] = { $(k.index and "value, index" or "out") };
    const tkh_tensor_args args = { inputs, 1, outputs, $(#k.outputs), NULL, 0, axes, axis_count, keepdims,
        stream };
    return tkh_tensor_call(ctx, &$(k.info), &args, report);
}
@ if k.index then

tkh_status $(k.entry)(tkh_context *ctx, $(k.entry_params), size_t n, tkh_report *report)
{
    const void *inputs[1] = { in };
    void *outputs[2] = { value, index };
    const tkh_args args = { inputs, 1, outputs, 2, NULL, 0 };
    return tkh_kernel_call(ctx, &$(k.info), &args, n, report);
}

tkh_status $(k.device_entry)(tkh_context *ctx, $(k.entry_params), size_t n, tkh_stream stream)
{
    const void *inputs[1] = { in };
    void *outputs[2] = { value, index };
    const tkh_args args = { inputs, 1, outputs, 2, NULL, 0 };
    return tkh_kernel_enqueue(ctx, &$(k.info), &args, n, stream);
}
@ else

tkh_status $(k.entry)(tkh_context *ctx, const $(S) *in, $(O) *out, size_t n, tkh_report *report)
{
    const void *inputs[1] = { in };
    return tkh_kernel_run(ctx, &$(k.info), inputs, 1, out, n, report);
}

tkh_status $(k.device_entry)(tkh_context *ctx, const $(S) *in, $(O) *out, size_t n,
    tkh_stream stream)
{
    const void *inputs[1] = { in };
    return tkh_kernel_launch(ctx, &$(k.info), inputs, 1, out, n, stream);
}
@ end
