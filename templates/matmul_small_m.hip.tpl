@ -- The small-m kernel of a matrix product (every type, both platforms), after templates/matmul.hip.tpl.
@ local L = matmul_locals(k) -- the names every part of a product's source shares (gen/tkh/shapes/matmul.lua)
@ local S, O, float, R, a, b, params, args, pass, out_index, mma, mfma = L.S, L.O, L.float, L.R, L.a, L.b, L.params, L.args, L.pass, L.out_index, L.mma, L.mfma
#include "tokitai_hip/codegen/small_m.h"
#include "tokitai_hip/codegen/thread_group.h"

/* The offsets of each array's batch 'i' (at[x]), over the plan's batch dimensions. */
static __device__ __forceinline__ void $(k.symbol)_batch_at(const tkh_plan &p, int64_t i, int64_t *at)
{
    for (int x = 0; x < $(#k.inputs + 1); ++x)
        at[x] = 0;
    for (int d = 3; d < p.ndim; ++d) {
        const int64_t c = i % p.size[d];
        i /= p.size[d];
        for (int x = 0; x < $(#k.inputs + 1); ++x)
            at[x] += c * p.stride[x][d];
    }
}

/* Products of at most 16 rows (x @ w^T at inference): the time is reading b once, so each
 * block takes a few columns for all its rows (at most MT) and the whole of k, its 256
 * threads splitting k; a's rows are read by every block, from the caches. b K-major (k
 * contiguous, linear's weight): NC columns a block, thread t reading chunks t, t + 256, ...
 * of KV elements along k of each (16 bytes where VEC, else one element), with a's same
 * chunk of each row. b MN-major (n contiguous): 8 chunks of V columns a block, thread t
 * reading chunk t % 8 at k = t / 8 + 32 i (V elements as one vector where VEC, else one by
 * one) and a's element of each row there. Each thread holds P = NC x MT (or V x MT) sums
 * in $(R); they are summed across the threads of other k (tokitai_hip/codegen/small_m.h),
 * then the epilogue runs once an output. Rows: the plan's m, or where b is the same for
 * every batch (its batch strides 0) the batch's rows one after another, in groups of MT
 * (docs/matmul.md). */
template <int MT, bool BK, bool VEC>
__global__ void TKH_SMALL_BOUNDS $(k.symbol)_small($(table.concat(params, ", ")), const tkh_plan tkhm_p)
{
    constexpr int E = 16 / (int)sizeof($(S)); /* elements of 16 bytes */
    constexpr int FIT = 256 / (MT * (int)sizeof($(R))); /* columns whose MT sums take 64 words */
    constexpr int W = E < 8 ? E : 8; /* columns a thread, MN-major: i8's 16 would take too many registers */
    constexpr int KV = VEC ? E : 1, V = W < FIT ? W : FIT, NC = BK ? (FIT < 8 ? FIT : 8) : V, P = NC * MT;
    constexpr int TILE = BK ? NC : 8 * V, BITS = BK ? 5 : 2; /* a tile's columns; lane bits of other k */
    constexpr int HELD = P >> BITS > 1 ? P >> BITS : 1, OWN = BK ? 1 : 8; /* sums a lane keeps; chunks a tile */
    typedef tkh_pack<$(S), BK ? KV : V> pack;
    __shared__ $(R) tkhm_red[TKH_SMALL_GROUPS * OWN * P];
    const int64_t K = tkhm_p.size[0], N = tkhm_p.size[1], M = tkhm_p.size[2], batch = tkhm_p.count / (N * M);
    const int64_t a_k = tkhm_p.stride[0][0], a_m = tkhm_p.stride[0][2], b_k = tkhm_p.stride[1][0], b_n = tkhm_p.stride[1][1];
    bool fold = true;
    for (int d = 3; d < tkhm_p.ndim; ++d)
        fold = fold && tkhm_p.stride[1][d] == 0;
    const int64_t rows = fold ? M * batch : M, groups = (rows + MT - 1) / MT, tiles = (N + TILE - 1) / TILE;
    const unsigned tid = threadIdx.x, lane = tid % 32, group = tid / 32;
    /* tasks: the row groups of a tile side by side (they share its b in L2), then tiles, then b's batches */
    for (int64_t task = blockIdx.x; task < groups * tiles * (fold ? 1 : batch); task += gridDim.x) {
        const int64_t g = task % groups, tile = task / groups % tiles, bb = fold ? 0 : task / groups / tiles;
        const int64_t n0 = tile * TILE;
        int64_t at[$(#k.inputs + 1)];
        const $(S) *a_row[MT];
        $(k.symbol)_batch_at(tkhm_p, bb, at);
        const $(S) *const gb = p_$(b.name) + at[1];
#pragma unroll
        for (int j = 0; j < MT; ++j) { /* rows past the last read the last, their sums unused */
            const int64_t r = g * MT + j < rows ? g * MT + j : rows - 1;
            if (fold)
                $(k.symbol)_batch_at(tkhm_p, r / M, at);
            a_row[j] = p_$(a.name) + at[0] + (fold ? r % M : r) * a_m;
        }
        $(R) acc[P];
#pragma unroll
        for (int v = 0; v < P; ++v)
            acc[v] = 0;
        if (BK) {
            /* columns past the last read the last: no branch in the loop, their sums unused */
            const $(S) *b_col[NC];
#pragma unroll
            for (int c = 0; c < NC; ++c)
                b_col[c] = gb + (n0 + c < N ? n0 + c : N - 1) * b_n;
#pragma unroll 1 /* a chunk's loads are the loads in flight; unrolled further, AMD's i8 spilled */
            for (int64_t q = tid; q * KV < K; q += TKH_SMALL_THREADS) {
                pack x[MT], y[NC];
#pragma unroll
                for (int j = 0; j < MT; ++j)
                    if (VEC)
                        x[j] = *(const pack *)(a_row[j] + q * KV);
                    else
                        x[j].e[0] = a_row[j][q * a_k];
#pragma unroll
                for (int c = 0; c < NC; ++c)
                    if (VEC)
                        y[c] = *(const pack *)(b_col[c] + q * KV);
                    else
                        y[c].e[0] = b_col[c][q * b_k];
#pragma unroll
                for (int i = 0; i < KV; ++i) {
                    $(R) w[NC];
#pragma unroll
                    for (int c = 0; c < NC; ++c)
                        w[c] = ($(R))$(load(b.type, "y[c].e[i]"));
#pragma unroll
                    for (int j = 0; j < MT; ++j) {
                        const $(R) u = ($(R))$(load(a.type, "x[j].e[i]"));
#pragma unroll
                        for (int c = 0; c < NC; ++c)
@ if float then
                            acc[c * MT + j] = fma(u, w[c], acc[c * MT + j]);
@ else
                            acc[c * MT + j] += u * w[c];
@ end
                    }
                }
            }
        } else {
            /* this thread's V columns (chunks past the last read the last; b_n is 1) and its k slice */
            const int64_t n1 = n0 + (int64_t)tkh_small_mn_chunk(tid) * V;
            const $(S) *const b_cols = gb + (n1 < N ? n1 : VEC ? N - V : N - 1);
#pragma unroll 1
            for (int64_t q = tkh_small_mn_slice(tid); q < K; q += TKH_SMALL_THREADS / 8) {
                pack y;
                if (VEC)
                    y = *(const pack *)(b_cols + q * b_k);
                else
#pragma unroll
                    for (int i = 0; i < V; ++i) /* columns past the last read the chunk's first */
                        y.e[i] = b_cols[q * b_k + (n1 + i < N ? i : 0)];
                $(R) w[V];
#pragma unroll
                for (int i = 0; i < V; ++i)
                    w[i] = ($(R))$(load(b.type, "y.e[i]"));
#pragma unroll
                for (int j = 0; j < MT; ++j) {
                    const $(R) u = ($(R))$(load(a.type, "a_row[j][q * a_k]"));
#pragma unroll
                    for (int i = 0; i < V; ++i)
@ if float then
                        acc[i * MT + j] = fma(u, w[i], acc[i * MT + j]);
@ else
                        acc[i * MT + j] += u * w[i];
@ end
                }
            }
        }
        /* the sums across the lanes of other k, then across the groups */
        tkh_small_reduce<0, BITS>(acc, lane);
        if (tkh_small_owner(P, BITS, lane)) {
            $(R) *const to = tkhm_red + (group * OWN + (BK ? 0 : tkh_small_mn_chunk(tid))) * P + tkh_small_first(P, BITS, lane);
#pragma unroll
            for (int v = 0; v < HELD; ++v)
                to[v] = acc[v];
        }
        __syncthreads();
        for (unsigned t = tid; t < OWN * P; t += TKH_SMALL_THREADS) {
            const unsigned chunk = t / P, v = t % P;
            $(R) sum = tkhm_red[chunk * P + v];
#pragma unroll
            for (int h = 1; h < TKH_SMALL_GROUPS; ++h)
                sum += tkhm_red[(h * OWN + chunk) * P + v];
            const int64_t n = n0 + chunk * V + v / MT, r = g * MT + v % MT;
            if (n < N && r < rows) {
                $(k.symbol)_batch_at(tkhm_p, fold ? r / M : bb, at);
                $(k.symbol)_finish($(pass), tkhm_p, at, fold ? r % M : r, n, sum);
            }
        }
        __syncthreads(); /* tkhm_red is free for the next task */
    }
}

/* The small-m kernel where the plan has at most 16 rows (m): -1 where it does not, else the
 * launch's error. Each operand's chunks are read as vectors (VEC) where every chunk is
 * whole and aligned, else element by element. A block a task, up to 2^24 blocks (the rest
 * loop), not the tiles' grid: a few columns a task make many more blocks than tiles. */
static int $(k.symbol)_small_m(const void *const *inputs, const tkh_plan *p, void *stream,
    $(table.concat(params, ", ")))
{
    const int64_t k = p->size[0], n = p->size[1], m = p->size[2];
    if (m > TKH_SMALL_M_ROWS || m < 1 || n < 1 || p->count < 1)
        return -1;
    typedef void (*kernel_t)($(table.concat(params, ", ")), const tkh_plan);
#define TKHS_ROW(mt) { $(k.symbol)_small<mt, false, false>, $(k.symbol)_small<mt, false, true>, \
        $(k.symbol)_small<mt, true, false>, $(k.symbol)_small<mt, true, true> }
    const kernel_t kernels[5][4] = { TKHS_ROW(1), TKHS_ROW(2), TKHS_ROW(4), TKHS_ROW(8), TKHS_ROW(16) };
#undef TKHS_ROW
    const int64_t a_k = p->stride[0][0], a_m = p->stride[0][2], b_k = p->stride[1][0], b_n = p->stride[1][1];
    const int64_t batch = p->count / (n * m), e = 16 / (int64_t)sizeof($(S));
    int fold = 1;
    for (int d = 3; d < p->ndim; ++d)
        fold = fold && p->stride[1][d] == 0;
    const int64_t rows = fold ? m * batch : m;
    int mt = 0;
    while (mt < 4 && (1 << mt) < rows)
        ++mt;
    /* as the kernel's V and tile: b K-major unless it is MN-major (n contiguous) */
    const int bk = b_n != 1 || b_k == 1;
    const int64_t fit = 256 / ((1 << mt) * (int64_t)sizeof($(R))), nc = fit < 8 ? fit : 8;
    const int64_t w = e < 8 ? e : 8, v = bk ? e : w < fit ? w : fit, tile = bk ? nc : 8 * v;
    int vec = ((uintptr_t)inputs[1] % (uintptr_t)(v * (int64_t)sizeof($(S)))) == 0;
    for (int d = 3; d < p->ndim; ++d)
        vec = vec && p->stride[1][d] % v == 0 && (!bk || p->stride[0][d] % v == 0);
    if (bk)
        vec = vec && b_k == 1 && b_n % v == 0 && k % v == 0 && a_k == 1 && a_m % v == 0
            && (uintptr_t)inputs[0] % 16 == 0;
    else
        vec = vec && b_k % v == 0 && n % v == 0;
    const int64_t tasks = (rows + (1 << mt) - 1) / (1 << mt) * ((n + tile - 1) / tile) * (fold ? 1 : batch);
    const unsigned blocks = (unsigned)(tasks < (1 << 24) ? tasks : (1 << 24) - 1);
    hipLaunchKernelGGL(kernels[mt][2 * bk + vec], dim3(blocks), dim3(TKH_SMALL_THREADS), 0, (hipStream_t)stream,
        $(pass), *p);
    return (int)hipGetLastError();
}
