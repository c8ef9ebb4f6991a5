/* $(do_not_edit) */
/* $(k.op.name) over $(k.label): out[..., m, n] = epilogue(sum over k of a[..., m, k] * b$(k.b_layout == "nk" and "[..., n, k]" or "[..., k, n]"))
 * over a plan (tokitai_hip/codegen/plan.h): dimension 0 is k (reduced), 1 is n, 2 is m, the
 * rest the batch, each array at its own strides (0 where it does not step). Tiles of
 * TKHM_BM x TKHM_BN outputs a block of 256 threads, each thread 4 x 4 of them; the
 * operands' tiles go through shared memory TKHM_BK along k at a time, in the accumulator's
 * type, read along whichever of their dimensions is contiguous. The accumulation is a
 * chain of $(k.type.domain == "float" and "fused multiply-adds in " .. k.acc.name or "wrapping " .. k.acc.name .. " multiply-adds") along k per output,
 * then the epilogue ($(k.epilogue)) in $(k.acc.name), stored as $(k.out_type.name). docs/matmul.md. */
#include "tokitai_hip/codegen/hip_platform.h"
#include "tokitai_hip/codegen/plan.h"
#include "$(k.oracle_header)"

@ local S, O = k.type.c, k.out_type
@ local float = k.type.domain == "float"
@ -- The accumulator as the kernel holds it: integers in their unsigned type, which wraps.
@ local R = float and k.acc.compute or k.acc.unsigned
@ local BK = k.type.bits == 64 and 8 or 16
@ local a, b = k.inputs[1], k.inputs[2]
@ local params, args = {}, {}
@ for i, x in ipairs(k.inputs) do
@   params[#params + 1] = "const " .. x.type.c .. " *__restrict__ p_" .. x.name
@   args[#args + 1] = "(const " .. x.type.c .. " *)inputs[" .. (i - 1) .. "]"
@ end
@ params[#params + 1] = O.c .. " *__restrict__ p_out"
@ args[#args + 1] = "(" .. O.c .. " *)outputs[0]"
@ for _, s in ipairs(k.scalars) do
@   params[#params + 1] = s.type.c .. " p_" .. s.name
@   args[#args + 1] = "*(const " .. s.type.c .. " *)scalars[" .. s.index .. "]"
@ end
@ local out_index = #k.inputs
#define TKHM_BM 64
#define TKHM_BN 64
#define TKHM_BK $(BK)

__global__ void __launch_bounds__(256) $(k.symbol)_tiles($(table.concat(params, ", ")), const tkh_plan tkhm_p)
{
    __shared__ $(R) tkhm_as[TKHM_BK][TKHM_BM + 1];
    __shared__ $(R) tkhm_bs[TKHM_BK][TKHM_BN + 1];
    const int64_t tkhm_k = tkhm_p.size[0], tkhm_n = tkhm_p.size[1], tkhm_m = tkhm_p.size[2];
    const int64_t tkhm_tn = (tkhm_n + TKHM_BN - 1) / TKHM_BN, tkhm_tm = (tkhm_m + TKHM_BM - 1) / TKHM_BM;
    const int64_t tkhm_tiles = tkhm_tn * tkhm_tm * (tkhm_p.count / (tkhm_n * tkhm_m));
    const int64_t a_k = tkhm_p.stride[0][0], a_m = tkhm_p.stride[0][2];
    const int64_t b_k = tkhm_p.stride[1][0], b_n = tkhm_p.stride[1][1];
    const int64_t o_n = tkhm_p.stride[$(out_index)][1], o_m = tkhm_p.stride[$(out_index)][2];
    const unsigned tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    for (int64_t tile = blockIdx.x; tile < tkhm_tiles; tile += gridDim.x) {
        /* the tile's batch, then its place in the m x n plane */
        int64_t rest = tile / (tkhm_tn * tkhm_tm), at[$(#k.inputs + 1)] = { 0 };
        for (int d = 3; d < tkhm_p.ndim; ++d) {
            const int64_t i = rest % tkhm_p.size[d];
            rest /= tkhm_p.size[d];
            for (int x = 0; x < $(#k.inputs + 1); ++x)
                at[x] += i * tkhm_p.stride[x][d];
        }
        const int64_t in_plane = tile % (tkhm_tn * tkhm_tm);
        const int64_t m0 = in_plane / tkhm_tn * TKHM_BM, n0 = in_plane % tkhm_tn * TKHM_BN;
        $(R) acc[4][4];
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j)
                acc[i][j] = 0;
        for (int64_t k0 = 0; k0 < tkhm_k; k0 += TKHM_BK) {
            /* a's tile along its contiguous dimension, as b's: neighbouring threads read
             * neighbouring elements */
            for (unsigned e = tid; e < TKHM_BK * TKHM_BM; e += 256) {
                const unsigned kk = a_k == 1 ? e % TKHM_BK : e / TKHM_BM, mm = a_k == 1 ? e / TKHM_BK : e % TKHM_BM;
                const int64_t m = m0 + mm, kq = k0 + kk;
                tkhm_as[kk][mm] = m < tkhm_m && kq < tkhm_k
                    ? ($(R))$(load(a.type, "p_" .. a.name .. "[at[0] + m * a_m + kq * a_k]")) : ($(R))0;
            }
            for (unsigned e = tid; e < TKHM_BK * TKHM_BN; e += 256) {
                const unsigned kk = b_n == 1 ? e / TKHM_BN : e % TKHM_BK, nn = b_n == 1 ? e % TKHM_BN : e / TKHM_BK;
                const int64_t n = n0 + nn, kq = k0 + kk;
                tkhm_bs[kk][nn] = n < tkhm_n && kq < tkhm_k
                    ? ($(R))$(load(b.type, "p_" .. b.name .. "[at[1] + n * b_n + kq * b_k]")) : ($(R))0;
            }
            __syncthreads();
            for (int kk = 0; kk < TKHM_BK; ++kk) {
                $(R) ra[4], rb[4];
                for (int i = 0; i < 4; ++i)
                    ra[i] = tkhm_as[kk][ty + 16 * i];
                for (int j = 0; j < 4; ++j)
                    rb[j] = tkhm_bs[kk][tx + 16 * j];
                for (int i = 0; i < 4; ++i)
                    for (int j = 0; j < 4; ++j)
@ if float then
                        acc[i][j] = fma(ra[i], rb[j], acc[i][j]);
@ else
                        acc[i][j] += ra[i] * rb[j];
@ end
            }
            __syncthreads();
        }
        for (int i = 0; i < 4; ++i) {
            const int64_t m = m0 + ty + 16 * i;
            for (int j = 0; j < 4; ++j) {
                const int64_t n = n0 + tx + 16 * j;
                if (m >= tkhm_m || n >= tkhm_n)
                    continue;
@ local call = { "(" .. k.acc.compute .. ")acc[i][j]" }
@ for _, c in ipairs(k.columns) do
                const $(k.acc.compute) c_$(c.name) = p_$(c.name) ? ($(k.acc.compute))$(load(c.type, "p_" .. c.name .. "[at[" .. c.index .. "] + n * tkhm_p.stride[" .. c.index .. "][1]]")) : ($(k.acc.compute))($(c.default or "0"));
@   call[#call + 1] = "c_" .. c.name
@ end
@ for _, s in ipairs(k.scalars) do call[#call + 1] = "p_" .. s.name end
                p_out[at[$(out_index)] + m * o_m + n * o_n] = $(store(O, "(" .. O.compute .. ")" .. k.oracle .. "(" .. table.concat(call, ", ") .. ")"));
            }
        }
    }
}

/* The launcher over a plan of three dimensions or more (k, n, m, then the batch), blocks
 * of 256 threads. */
extern "C" TKH_HIDDEN int $(k.launch)_plan(const void *const *inputs, void *const *outputs,
    const void *const *scalars, const tkh_plan *plan, unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars;
    (void)scratch;
    if (plan->reduced != 1 || plan->ndim < 3 || grid == 0 || block != 256)
        return (int)hipErrorInvalidValue;
    hipLaunchKernelGGL($(k.symbol)_tiles, dim3(grid), dim3(block), 0, (hipStream_t)stream, $(table.concat(args, ", ")), *plan);
    return (int)hipGetLastError();
}

#undef TKHM_BM
#undef TKHM_BN
#undef TKHM_BK
