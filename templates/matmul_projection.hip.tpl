@ -- A matrix product's projected check on the device, after templates/matmul_mma.hip.tpl.
@ local L = matmul_locals(k) -- the names every part of a product's source shares (gen/tkh/shapes/matmul.lua)
@ local S, O, float, R, a, b, params, args, pass, out_index, mma, mfma = L.S, L.O, L.float, L.R, L.a, L.b, L.params, L.args, L.pass, L.out_index, L.mma, L.mfma
@ if k.projectable then
@   local X = k.extras[1]
@   local function real(t, e)
@     if float then return "(double)" .. load(t, e) end
@     return t.family == "signed" and ("(uint64_t)(int64_t)" .. e) or ("(uint64_t)" .. e)
@   end
@   local Y = float and "double" or "uint64_t"
/* The projected check on the device (tokitai_hip/codegen/projection.h, docs/matmul.md), in
 * kernels of its own that share no code with the product's: the first sums each row q of
 * b over blocks of TKH_PROJECTION_BLOCK columns by their weights (y$(float and ", and z of |b|" or ", modulo 2^64")),
 * a thread a row and block; the second, a thread TKHM_PROJ_ROWS output rows and a block,
 * sums a's rows against them, the block's outputs$(X and " less the extra input" or "") by the same weights, and compares. */
#define TKHM_PROJ_ROWS 8 /* output rows a thread of the second kernel, which read b's sums once for them */

static __device__ int64_t $(k.symbol)_proj_batch(const tkh_plan &p, int x, int64_t bi)
{
    int64_t off = 0;
    for (int d = 3; d < p.ndim; ++d) {
        off += bi % p.size[d] * p.stride[x][d];
        bi /= p.size[d];
    }
    return off;
}

__global__ void __launch_bounds__(256) $(k.symbol)_proj_b(const $(b.type.c) *__restrict__ pb, const tkh_plan p,
    const tkh_projection_args pa, $(Y) *__restrict__ y, double *__restrict__ z, tkh_projection_result *res)
{
    const int64_t kk = p.size[0], n = p.size[1], rows = p.count / (n * p.size[2]) * kk, total = rows * pa.blocks;
    const bool along_k = p.stride[1][0] == 1; /* neighbouring threads on neighbouring elements */
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *res = tkh_projection_result{ 0, 0, ~0ull, 0, 0 };
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < total; t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t r = along_k ? t % rows : t / pa.blocks, blk = along_k ? t / rows : t % pa.blocks;
        const $(b.type.c) *row = pb + $(k.symbol)_proj_batch(p, 1, r / kk) + r % kk * p.stride[1][0];
        const int64_t j1 = (blk + 1) * TKH_PROJECTION_BLOCK < n ? (blk + 1) * TKH_PROJECTION_BLOCK : n;
        $(Y) sy = 0;
        double sz = 0;
        for (int64_t j = blk * TKH_PROJECTION_BLOCK; j < j1; ++j) {
            const uint64_t w = tkh_projection_weight(pa.seed, j);
@   if float then
            const double v = $(real(b.type, "row[j * p.stride[1][1]]"));
            sy += w & 1 ? v : -v;
            sz += fabs(v);
@   else
            sy += (w | 1) * $(real(b.type, "row[j * p.stride[1][1]]"));
@   end
        }
        y[r * pa.blocks + blk] = sy;
        z[r * pa.blocks + blk] = sz;
    }
}

__global__ void __launch_bounds__(256) $(k.symbol)_proj_rows(const $(a.type.c) *__restrict__ pa_, $(X and ("const " .. X.type.c .. " *__restrict__ px, ") or "")const $(O.c) *__restrict__ po,
    const tkh_plan p, const tkh_projection_args pa, const $(Y) *__restrict__ y, const double *__restrict__ z,
    tkh_projection_result *res)
{
    __shared__ unsigned long long s_sum[256], s_first[256], s_worst[256], s_threshold[256];
    const int64_t kk = p.size[0], n = p.size[1], m = p.size[2], groups = (m + TKHM_PROJ_ROWS - 1) / TKHM_PROJ_ROWS;
    const int64_t total = p.count / (n * m) * groups * pa.blocks;
    const unsigned tid = threadIdx.x;
    for (int64_t t0 = blockIdx.x * (int64_t)blockDim.x; t0 < total; t0 += (int64_t)gridDim.x * blockDim.x) {
        const int64_t t = t0 + tid, blk = t % pa.blocks, bi = t / pa.blocks / groups;
        const int64_t i0 = t / pa.blocks % groups * TKHM_PROJ_ROWS, rows = m - i0 < TKHM_PROJ_ROWS ? m - i0 : TKHM_PROJ_ROWS;
        unsigned long long fail = 0, first = ~0ull, worst = 0, threshold = 0;
        if (t < total) {
            const int64_t j0 = blk * TKH_PROJECTION_BLOCK, j1 = j0 + TKH_PROJECTION_BLOCK < n ? j0 + TKH_PROJECTION_BLOCK : n;
            const $(a.type.c) *ar = pa_ + $(k.symbol)_proj_batch(p, 0, bi) + i0 * p.stride[0][2];
            const $(O.c) *orow = po + $(k.symbol)_proj_batch(p, $(#k.inputs), bi) + i0 * p.stride[$(#k.inputs)][2];
            const size_t e0 = (size_t)(bi * kk) * (size_t)pa.blocks + (size_t)blk;
@   if float then
            double rhs[TKHM_PROJ_ROWS] = { 0 }, mag[TKHM_PROJ_ROWS] = { 0 };
            for (int64_t q = 0; q < kk; ++q) {
                const double yq = y[e0 + (size_t)q * (size_t)pa.blocks], zq = z[e0 + (size_t)q * (size_t)pa.blocks];
#pragma unroll
                for (int r = 0; r < TKHM_PROJ_ROWS; ++r)
                    if (r < rows) {
                        const double v = $(real(a.type, "ar[r * p.stride[0][2] + q * p.stride[0][0]]"));
                        rhs[r] += v * yq;
                        mag[r] += fabs(v) * zq;
                    }
            }
#pragma unroll /* rhs and mag stay in registers */
            for (int r = 0; r < TKHM_PROJ_ROWS; ++r) {
                if (r >= rows)
                    break;
                double lhs = 0, sabs = 0, cabs = 0;
                for (int64_t j = j0; j < j1; ++j) {
                    const bool plus = tkh_projection_weight(pa.seed, j) & 1;
                    const double v = $(real(O, "orow[r * p.stride[" .. #k.inputs .. "][2] + j * p.stride[" .. #k.inputs .. "][1]]"));
                    lhs += plus ? v : -v;
                    sabs += fabs(v);
@     if X then
                    if (pa.extra) {
                        const double c = $(real(X.type, "px[" .. k.symbol .. "_proj_batch(p, 2, bi) + (i0 + r) * p.stride[2][2] + j * p.stride[2][1]]"));
                        rhs[r] += plus ? c : -c;
                        cabs += fabs(c);
                    }
@     end
                }
                const double bound = tkh_projection_bound(kk, j1 - j0, pa.u_acc, pa.tiny_acc, pa.u_out, pa.tiny_out, lhs,
                    rhs[r], mag[r], sabs, cabs);
                const double diff = fabs(lhs - rhs[r]);
                const bool bad = !(bound >= 0 && diff <= bound);
                /* this block's index among all of them (row-major), for the report's worst */
                const int64_t at = (bi * m + i0 + r) * pa.blocks + blk;
                const unsigned long long ratio = bound > 0 && !bad
                    ? (unsigned long long)__float_as_uint((float)(diff / bound)) << 32
                        | (at < 0xffffffffll ? (unsigned long long)at : 0xffffffffull) : 0;
                const unsigned long long twice = bound > 0 ? (unsigned long long)__double_as_longlong(2 * bound) : 0;
                worst = ratio > worst ? ratio : worst;
                threshold = twice > threshold ? twice : threshold;
                fail += bad;
                if (bad && first == ~0ull)
                    first = (unsigned long long)((bi * m + i0 + r) * n + j0);
            }
@   else
            uint64_t rhs[TKHM_PROJ_ROWS] = { 0 };
            for (int64_t q = 0; q < kk; ++q) {
                const uint64_t yq = y[e0 + (size_t)q * (size_t)pa.blocks];
#pragma unroll
                for (int r = 0; r < TKHM_PROJ_ROWS; ++r)
                    if (r < rows)
                        rhs[r] += $(real(a.type, "ar[r * p.stride[0][2] + q * p.stride[0][0]]")) * yq;
            }
#pragma unroll /* rhs and mag stay in registers */
            for (int r = 0; r < TKHM_PROJ_ROWS; ++r) {
                if (r >= rows)
                    break;
                uint64_t lhs = 0;
                for (int64_t j = j0; j < j1; ++j)
                    lhs += (tkh_projection_weight(pa.seed, j) | 1) * $(real(O, "orow[r * p.stride[" .. #k.inputs .. "][2] + j * p.stride[" .. #k.inputs .. "][1]]"));
                const bool bad = ((lhs - rhs[r]) & pa.mask) != 0;
                fail += bad;
                if (bad && first == ~0ull)
                    first = (unsigned long long)((bi * m + i0 + r) * n + j0);
            }
@   end
        }
        /* the block's sums, smallest first failure and largest ratio and bound, then one
         * thread's atomics */
        s_sum[tid] = (unsigned long long)(t < total ? rows : 0) | fail << 32;
        s_first[tid] = first;
        s_worst[tid] = worst;
        s_threshold[tid] = threshold;
        __syncthreads();
        for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
            if (tid < half) {
                s_sum[tid] += s_sum[tid + half];
                s_first[tid] = s_first[tid + half] < s_first[tid] ? s_first[tid + half] : s_first[tid];
                s_worst[tid] = s_worst[tid + half] > s_worst[tid] ? s_worst[tid + half] : s_worst[tid];
                s_threshold[tid] = s_threshold[tid + half] > s_threshold[tid] ? s_threshold[tid + half] : s_threshold[tid];
            }
            __syncthreads();
        }
        if (tid == 0) {
            atomicAdd(&res->blocks, s_sum[0] & 0xffffffffull);
            atomicAdd(&res->failed, s_sum[0] >> 32);
            atomicMin(&res->first, s_first[0]);
            atomicMax(&res->worst, s_worst[0]);
            atomicMax(&res->threshold, s_threshold[0]);
        }
        __syncthreads(); /* before the next round's writes */
    }
}

extern "C" TKH_HIDDEN int $(k.launch)_project(const void *const *inputs, const void *output, const tkh_plan *plan,
    const tkh_projection_args *args, void *sums, tkh_projection_result *result, void *stream)
{
    const int64_t rows = plan->count / (plan->size[1] * plan->size[2]) * plan->size[0];
    $(Y) *y = ($(Y) *)sums;
    double *z = (double *)(y + rows * args->blocks);
    const int64_t groups = (plan->size[2] + TKHM_PROJ_ROWS - 1) / TKHM_PROJ_ROWS;
    const int64_t b_threads = rows * args->blocks, o_threads = plan->count / (plan->size[1] * plan->size[2]) * groups * args->blocks;
    const unsigned b_grid = (unsigned)(b_threads / 256 + 1 < 65536 ? b_threads / 256 + 1 : 65536);
    const unsigned o_grid = (unsigned)(o_threads / 256 + 1 < 65536 ? o_threads / 256 + 1 : 65536);
    hipLaunchKernelGGL($(k.symbol)_proj_b, dim3(b_grid), dim3(256), 0, (hipStream_t)stream,
        (const $(b.type.c) *)inputs[1], *plan, *args, y, z, result);
    hipError_t err = hipGetLastError();
    if (err != hipSuccess)
        return (int)err;
    hipLaunchKernelGGL($(k.symbol)_proj_rows, dim3(o_grid), dim3(256), 0, (hipStream_t)stream,
        (const $(a.type.c) *)inputs[0], $(X and ("(const " .. X.type.c .. " *)inputs[2], ") or "")(const $(O.c) *)output, *plan, *args, y, z, result);
    return (int)hipGetLastError();
}

#undef TKHM_PROJ_ROWS
@ end
