@ -- The small-m kernel of a matrix product (every type, both platforms), after templates/matmul.hip.tpl.
@ local L = matmul_locals(k) -- the names every part of a product's source shares (gen/tkh/shapes/matmul.lua)
@ local S, O, float, R, a, b, params, args, pass, out_index, mma, mfma = L.S, L.O, L.float, L.R, L.a, L.b, L.params, L.args, L.pass, L.out_index, L.mma, L.mfma
#include "tokitai_hip/codegen/thread_group.h"

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
        $(k.symbol)_batch(tkhm_p, bb, at);
        const $(S) *const gb = p_$(b.name) + at[1];
#pragma unroll
        for (int j = 0; j < MT; ++j) { /* rows past the last read the last, their sums unused */
            const int64_t r = g * MT + j < rows ? g * MT + j : rows - 1;
            if (fold)
                $(k.symbol)_batch(tkhm_p, r / M, at);
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
                $(k.symbol)_batch(tkhm_p, fold ? r / M : bb, at);
                $(k.symbol)_finish($(pass), tkhm_p, at, fold ? r % M : r, n, sum);
            }
        }
        __syncthreads(); /* tkhm_red is free for the next task */
    }
}

@ local half_mma = mma and mma.epc == 8 -- f16 and bf16: the matrix-instruction small-m kernel
@ if half_mma then
#if defined(TKH_PLATFORM_NVIDIA)
/* The small-m kernel on mma.sync m16n8k16 (f16 and bf16, b K-major, a's rows k-contiguous, whole
 * 16-byte chunks; sm_80 and later): a block takes 16 rows and 8 NT columns, its 8 warps chunks
 * of 32 along k, U at a time (so NT U 16-byte loads of b a lane in flight), each lane's pieces
 * of a's rows and b's columns made into the instruction's operands by the maps of
 * tokitai_hip/codegen/small_m.h. The instructions' f32 sums of each warp are then added across
 * the warps in order in shared memory, and the epilogue runs once an output. Where the fused
 * multiply-adds of the kernel above take a's rows 16 times as often as b's columns, here each
 * chunk of b is one instruction's operand: 16 rows cost no more than one. */
template <int NT, int U>
__global__ void __launch_bounds__(TKH_SMALL_THREADS, 2) $(k.symbol)_small_mma($(table.concat(params, ", ")), const tkh_plan tkhm_p)
{
#if defined(TKH_HAS_MMA_SYNC)
    constexpr int C = 8 * NT; /* a block's columns */
    __shared__ float tkhm_red[TKH_SMALL_GROUPS][16][C + 1];
    const int64_t K = tkhm_p.size[0], N = tkhm_p.size[1], M = tkhm_p.size[2], batch = tkhm_p.count / (N * M);
    const int64_t a_m = tkhm_p.stride[0][2], b_n = tkhm_p.stride[1][1];
    bool fold = true;
    for (int d = 3; d < tkhm_p.ndim; ++d)
        fold = fold && tkhm_p.stride[1][d] == 0;
    const int64_t rows = fold ? M * batch : M, groups = (rows + 15) / 16, tiles = (N + C - 1) / C;
    const int64_t steps = ((K + 31) / 32 + 8 * U - 1) / (8 * U);
    const unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const unsigned piece = tkh_small_mma_k(lane);
    for (int64_t task = blockIdx.x; task < groups * tiles * (fold ? 1 : batch); task += gridDim.x) {
        const int64_t g = task % groups, tile = task / groups % tiles, bb = fold ? 0 : task / groups / tiles;
        const int64_t n0 = tile * C;
        int64_t at[$(#k.inputs + 1)];
        $(k.symbol)_batch(tkhm_p, bb, at);
        /* this lane's rows (NULL past the last: zeros) and columns (past the last: the last's, unused) */
        const $(S) *a_row[2];
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int64_t r = g * 16 + lane / 4 + 8 * h;
            int64_t ra[$(#k.inputs + 1)];
            if (fold && r < rows)
                $(k.symbol)_batch(tkhm_p, r / M, ra);
            a_row[h] = r < rows ? p_$(a.name) + (fold ? ra[0] : at[0]) + (fold ? r % M : r) * a_m + piece : NULL;
        }
        const $(S) *b_col[NT];
#pragma unroll
        for (int j = 0; j < NT; ++j) {
            const int64_t c = n0 + 8 * j + lane / 4;
            b_col[j] = p_$(b.name) + at[1] + (c < N ? c : N - 1) * b_n + piece;
        }
        float d[NT][4];
#pragma unroll
        for (int j = 0; j < NT; ++j)
            d[j][0] = d[j][1] = d[j][2] = d[j][3] = 0;
#pragma unroll 1
        for (int64_t step = 0; step < steps; ++step) {
            uint4 x[U][2], y[U][NT];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int64_t q = 32 * tkh_small_mma_chunk(warp, step, u, U);
                const bool in = q + piece < K; /* K is whole chunks of 8: a piece is all in or all out */
#pragma unroll
                for (int h = 0; h < 2; ++h)
                    x[u][h] = in && a_row[h] ? *(const uint4 *)(a_row[h] + q) : make_uint4(0, 0, 0, 0);
#pragma unroll
                for (int j = 0; j < NT; ++j)
                    y[u][j] = in ? *(const uint4 *)(b_col[j] + q) : make_uint4(0, 0, 0, 0);
            }
#pragma unroll
            for (int u = 0; u < U; ++u)
#pragma unroll
                for (int half = 0; half < 2; ++half) {
                    const uint32_t lo[4] = { x[u][0].x, x[u][0].y, x[u][0].z, x[u][0].w },
                                   hi[4] = { x[u][1].x, x[u][1].y, x[u][1].z, x[u][1].w };
                    uint32_t fa[4];
                    tkh_small_mma_a(lo, hi, half, fa);
#pragma unroll
                    for (int j = 0; j < NT; ++j) {
                        const uint32_t w[4] = { y[u][j].x, y[u][j].y, y[u][j].z, y[u][j].w };
                        uint32_t fb[2];
                        tkh_small_mma_b(w, half, fb);
                        tkh_mma_16816<$(k.type.name == "bf16" and "true" or "false")>(d[j], fa, fb);
                    }
                }
        }
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int i = 0; i < 4; ++i)
                tkhm_red[warp][tkh_small_mma_row(lane, i)][8 * j + tkh_small_mma_col(lane, i)] = d[j][i];
        __syncthreads();
        for (unsigned o = tid; o < 16 * C; o += TKH_SMALL_THREADS) {
            const unsigned row = o / C, col = o % C;
            const int64_t n = n0 + col, r = g * 16 + row;
            if (n < N && r < rows) {
                float sum = tkhm_red[0][row][col];
#pragma unroll
                for (int w = 1; w < TKH_SMALL_GROUPS; ++w)
                    sum += tkhm_red[w][row][col];
                int64_t ra[$(#k.inputs + 1)];
                $(k.symbol)_batch(tkhm_p, fold ? r / M : bb, ra);
                $(k.symbol)_finish($(pass), tkhm_p, ra, fold ? r % M : r, n, sum);
            }
        }
        __syncthreads(); /* tkhm_red is free for the next task */
    }
#endif
}
#endif
@ end

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
@ if half_mma then
#if defined(TKH_PLATFORM_NVIDIA) /* b K-major in vectors: the mma.sync kernel above, else element by element */
#define TKHS_BK_VEC(mt) NULL
#else
#define TKHS_BK_VEC(mt) $(k.symbol)_small<mt, true, true>
#endif
@ else
#define TKHS_BK_VEC(mt) $(k.symbol)_small<mt, true, true>
@ end
    /* by row group and b's layout (bk): in vectors groups of 1, 2, 4, 8 or 16 rows; element by
     * element (odd layouts) 1, 4 or 16 only, each instance being build time */
#define TKHS_VEC(mt) { $(k.symbol)_small<mt, false, true>, TKHS_BK_VEC(mt) }
#define TKHS_ONE(mt) { $(k.symbol)_small<mt, false, false>, $(k.symbol)_small<mt, true, false> }
    const kernel_t in_vectors[5][2] = { TKHS_VEC(1), TKHS_VEC(2), TKHS_VEC(4), TKHS_VEC(8), TKHS_VEC(16) };
    const kernel_t one_by_one[3][2] = { TKHS_ONE(1), TKHS_ONE(4), TKHS_ONE(16) };
#undef TKHS_VEC
#undef TKHS_ONE
#undef TKHS_BK_VEC
    const int64_t a_k = p->stride[0][0], a_m = p->stride[0][2], b_k = p->stride[1][0], b_n = p->stride[1][1];
    const int64_t batch = p->count / (n * m), e = 16 / (int64_t)sizeof($(S));
    int fold = 1;
    for (int d = 3; d < p->ndim; ++d)
        fold = fold && p->stride[1][d] == 0;
    const int64_t rows = fold ? m * batch : m;
    int mt = 0;
    while (mt < 4 && (1 << mt) < rows)
        ++mt;
    /* as the kernel's FIT, V and TILE for groups of 2^g rows: b K-major unless it is MN-major
     * (n contiguous) */
    const int bk = b_n != 1 || b_k == 1;
    const int64_t w = e < 8 ? e : 8;
    auto fit = [](int g) { return 256 / ((int64_t)1 << g) / (int64_t)sizeof($(R)); };
    auto tile = [&](int g) { return bk ? (fit(g) < 8 ? fit(g) : 8) : 8 * (w < fit(g) ? w : fit(g)); };
    const int64_t v = bk ? e : w < fit(mt) ? w : fit(mt);
    int vec = ((uintptr_t)inputs[1] % (uintptr_t)(v * (int64_t)sizeof($(S)))) == 0;
    for (int d = 3; d < p->ndim; ++d)
        vec = vec && p->stride[1][d] % v == 0 && (!bk || p->stride[0][d] % v == 0);
    if (bk)
        vec = vec && b_k == 1 && b_n % v == 0 && k % v == 0 && a_k == 1 && a_m % v == 0
            && (uintptr_t)inputs[0] % 16 == 0;
    else
        vec = vec && b_k % v == 0 && n % v == 0;
@ if half_mma then
#if defined(TKH_PLATFORM_NVIDIA)
    int sms = 0;
    if (bk && vec && (sms = tkh_mma_sms()) <= 0)
        vec = 0; /* a device without mma.sync (before sm_80) */
    if (bk && vec) {
        /* 32 columns a block, fewer where that makes fewer blocks than multiprocessors */
        const int64_t groups = (rows + 15) / 16 * (fold ? 1 : batch);
        int nt = 4;
        while (nt > 1 && groups * ((n + 8 * nt - 1) / (8 * nt)) < (int64_t)sms)
            nt /= 2;
        const kernel_t by_nt[3] = { $(k.symbol)_small_mma<1, 4>, $(k.symbol)_small_mma<2, 4>, $(k.symbol)_small_mma<4, 2> };
        const int64_t tasks = groups * ((n + 8 * nt - 1) / (8 * nt));
        hipLaunchKernelGGL(by_nt[nt / 2], dim3((unsigned)(tasks < (1 << 24) ? tasks : (1 << 24) - 1)),
            dim3(TKH_SMALL_THREADS), 0, (hipStream_t)stream, $(pass), *p);
        return (int)hipGetLastError();
    }
#endif
@ end
    if (!vec)
        mt = mt == 0 ? 0 : mt <= 2 ? 2 : 4; /* one_by_one's groups */
    const int64_t tasks = (rows + (1 << mt) - 1) / (1 << mt) * ((n + tile(mt) - 1) / tile(mt)) * (fold ? 1 : batch);
    const unsigned blocks = (unsigned)(tasks < (1 << 24) ? tasks : (1 << 24) - 1);
    const kernel_t kernel = vec ? in_vectors[mt][bk] : one_by_one[mt / 2][bk];
    hipLaunchKernelGGL(kernel, dim3(blocks), dim3(TKH_SMALL_THREADS), 0, (hipStream_t)stream,
        $(pass), *p);
    return (int)hipGetLastError();
}
