/* $(do_not_edit) */
/* Host entry points of the $(k.op.name) matrix product over $(k.label) and its oracle's check
 * of outputs along a row. Each output's sum is recomputed on the host: for floats, with
 * the products exact in the wide type, beside a bound on the device's accumulation of k
 * products in any order and blocking (docs/matmul.md), carried through the epilogue with
 * its error bound (tokitai_hip/codegen/error_bound.h): a device result within the bound
 * passes; for integers, modulo 2^bits as the device's wrapping accumulator holds it,
 * compared exactly. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "$(ops_header)"
#include "$(k.oracle_header)"
#include "$(compare_header)"
#include "tokitai_hip/codegen/error_bound.h"

extern TKH_HIDDEN const tkh_kernel_info $(k.info);

@ local S, O, t = k.type.c, k.out_type, k.type
@ local a, b = k.inputs[1], k.inputs[2]
@ local float = t.domain == "float"
@ -- The host's sum: products of 16- and 32-bit floats are exact in double; f64's are
@ -- rounded once in long double; integers wrap in the accumulator's unsigned type.
@ local W = not float and k.acc.unsigned or t.bits == 64 and "long double" or "double"
@ local U = k.acc.bits == 64 and "TKH_EB_F64" or "TKH_EB_F32"
@ local stored = O.bits == k.acc.bits and ("TKH_EB_STORED(" .. (O.bits == 64 and "DBL_MAX" or "FLT_MAX") .. ")")
@   or ({ f16 = "TKH_EB_F16", bf16 = "TKH_EB_BF16", f32 = "TKH_EB_F32" })[O.name]
#define TKHM_CHUNK 256 /* outputs summed together, so that b is read along its rows */

@ if float then
/* The device's sum of k products in the accumulator's type t, in any order and blocking,
 * from the host's: in round-to-nearest operations ('nearest') no product passes through more
 * than k roundings of at most u each, so |device - exact| <= gamma(k) at u times the sum of
 * |products|; on matrix instructions each of the k additions may lose up to 2 u of the
 * running magnitude (the tensor cores' truncation, docs/matmul.md): gamma(2k + 2) at 2 u
 * (tkh_sum_steps); plus an underflow per rounding; the host's own sum in 'w' adds its
 * rounding. Non-finite products: NaN, or infinities of both signs, give NaN whatever the
 * order; infinities of one sign give that infinity unless the finite part may overflow. */
static tkh_eb product_sum(long double sum, long double mag, int special, int64_t k, int nearest, long double w,
    tkh_eb_type t)
{
    double unit;
    const long double n = tkh_sum_steps(k, nearest, &unit), g = n * unit * t.u;
    tkh_eb r = { sum, 0 };
    if (special) {
        r.v = (special & 4) || special == 3 ? NAN : special == 1 ? INFINITY : -INFINITY;
        r.e = (special & 4) || special == 3 || mag * (1 + 2 * g) + n * t.tiny < t.max ? 0 : INFINITY;
        return r;
    }
    r.e = g < 1 ? g / (1 - g) * mag + n * t.tiny + 2 * ((long double)k + 1) * w * mag : INFINITY;
    if (!(fabsl(sum) + r.e < t.max))
        r.e = INFINITY; /* the device may overflow */
    return r;
}

@ end
TKH_HIDDEN size_t $(k.check)_product(const void *a, int64_t a_k, const void *b, int64_t b_k, int64_t b_n,
    const void *const *columns, const int64_t *column_n, const void *out, int64_t out_n,
    const void *const *scalars, size_t k, int nearest, size_t count, tkh_check_note *note)
{
    const $(S) *pa = (const $(S) *)a, *pb = (const $(S) *)b;
    const $(O.c) *got = (const $(O.c) *)out;
@ for i, c in ipairs(k.extras) do
    const $(c.type.c) *p_$(c.name) = (const $(c.type.c) *)columns[$(i - 1)];
    const int64_t n_$(c.name) = column_n[$(i - 1)];
@ end
    (void)columns;
    (void)column_n;
    (void)scalars;
    (void)nearest; /* integers: exact */
@ for _, s in ipairs(k.scalars) do
    const tkh_eb e_$(s.name) = tkh_eb_exact((long double)$(load(s.type, "*(const " .. s.type.c .. " *)scalars[" .. s.index .. "]")));
@ end
    for (size_t j0 = 0; j0 < count; j0 += TKHM_CHUNK) {
        const size_t w = count - j0 < TKHM_CHUNK ? count - j0 : TKHM_CHUNK;
        $(W) sum[TKHM_CHUNK] = { 0 };
@ if float then
        $(W) mag[TKHM_CHUNK] = { 0 };
        int special[TKHM_CHUNK] = { 0 };
@ end
        for (size_t i = 0; i < k; ++i) {
            const $(W) x = ($(W))$(load(t, "pa[(int64_t)i * a_k]"));
            const $(S) *row = pb + (int64_t)i * b_k + (int64_t)j0 * b_n;
            for (size_t j = 0; j < w; ++j) {
@ if float then
                const $(W) p = x * ($(W))$(load(t, "row[(int64_t)j * b_n]"));
                if (isfinite(p)) {
                    sum[j] += p;
                    mag[j] += fabs$(W == "long double" and "l" or "")(p);
                } else
                    special[j] |= isnan(p) ? 4 : p > 0 ? 1 : 2;
@ else
                sum[j] += x * ($(W))$(load(t, "row[(int64_t)j * b_n]"));
@ end
            }
        }
        for (size_t j = 0; j < w; ++j) {
            const size_t at = j0 + j;
            const $(O.c) g = got[(int64_t)at * out_n];
@ if float then
            const tkh_eb e_acc = product_sum(sum[j], mag[j], special[j], (int64_t)k, nearest, $(W == "long double" and "TKH_EB_UW" or "0x1p-53L"), $(U));
@   for _, c in ipairs(k.extras) do
            const tkh_eb e_$(c.name) = tkh_eb_exact(p_$(c.name) ? (long double)$(load(c.type, "p_" .. c.name .. "[(int64_t)at * n_" .. c.name .. "]")) : (long double)($(c.default or "0")));
@   end
            const tkh_eb_type U = $(U);
            const tkh_eb want = $(bound_c(k, k.epilogue_tree, k.epilogue));
            (void)U;
            const long double gv = (long double)$(load(O, "g"));
            if (!tkh_eb_accepts(want, gv, $(stored))) {
                char gs[64];
                $(prefix)_format_$(O.name)(gs, sizeof gs, g);
                $(prefix)_detail(note->detail, sizeof note->detail, "got %s, expected %.17Lg within %.3Lg (the sum of "
                    "%zu products, its bound carried through the epilogue)", gs, want.v, want.e, k);
                return at;
            }
            if (want.e > 0 && isfinite(want.e) && isfinite(want.v) && isfinite(gv)) {
                const double used = (double)(fabsl(gv - want.v) / want.e);
                if (used > note->worst) {
                    note->worst = used;
                    note->worst_index = at;
                }
            }
@ else
            const $(O.c) want = ($(O.c))sum[j];
            if (g != want) {
                $(prefix)_detail(note->detail, sizeof note->detail, "got %" $(O.fmt) ", expected %" $(O.fmt)
                    " (the sum of %zu products modulo 2^$(k.acc.bits))", g, want, k);
                return at;
            }
@ end
        }
    }
    return count;
}

@ local in_names, scalar_names = {}, {}
@ for _, x in ipairs(k.inputs) do in_names[#in_names + 1] = x.param end
@ for _, s in ipairs(k.scalars) do scalar_names[#scalar_names + 1] = "&" .. s.param end
@ local scalars_init = #scalar_names > 0 and ("{ " .. table.concat(scalar_names, ", ") .. " }") or "{ NULL }"
tkh_status $(k.tensor_entry)(tkh_context *ctx, $(k.tensor_params), tkh_stream stream, tkh_report *report)
{
    const DLTensor *inputs[$(#k.inputs)] = { $(table.concat(in_names, ", ")) };
    const DLTensor *outputs[1] = { $(k.outputs[1].param) };
    const void *scalars[$(math.max(#k.scalars, 1))] = $(scalars_init);
    const tkh_tensor_args args = { inputs, $(#k.inputs), outputs, 1, scalars, $(#k.scalars), NULL, 0, 0, stream };
    return tkh_tensor_call(ctx, &$(k.info), &args, report);
}

tkh_status $(k.entry)(tkh_context *ctx, $(k.entry_params), size_t m, size_t n, size_t k, tkh_report *report)
{
    const void *inputs[$(#k.inputs)] = { $(table.concat(in_names, ", ")) };
    void *outputs[1] = { $(k.outputs[1].param) };
    const void *scalars[$(math.max(#k.scalars, 1))] = $(scalars_init);
    const tkh_args args = { inputs, $(#k.inputs), outputs, 1, scalars, $(#k.scalars) };
    return tkh_product_call(ctx, &$(k.info), &args, m, n, k, report);
}

tkh_status $(k.device_entry)(tkh_context *ctx, $(k.entry_params), size_t m, size_t n, size_t k, tkh_stream stream)
{
    const void *inputs[$(#k.inputs)] = { $(table.concat(in_names, ", ")) };
    void *outputs[1] = { $(k.outputs[1].param) };
    const void *scalars[$(math.max(#k.scalars, 1))] = $(scalars_init);
    const tkh_args args = { inputs, $(#k.inputs), outputs, 1, scalars, $(#k.scalars) };
    return tkh_product_enqueue(ctx, &$(k.info), &args, m, n, k, stream);
}
