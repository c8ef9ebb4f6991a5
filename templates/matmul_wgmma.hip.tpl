@ -- Hopper's wgmma kernel of a 16-bit matrix product (NVIDIA sm_90a), after templates/matmul_mma.hip.tpl.
@ local L = matmul_locals(k) -- the names every part of a product's source shares (gen/tkh/shapes/matmul.lua)
@ local S, O, float, R, a, b, params, args, pass, out_index, wgmma = L.S, L.O, L.float, L.R, L.a, L.b, L.params, L.args, L.pass, L.out_index, L.wgmma
@ if wgmma then
#if defined(TKH_PLATFORM_NVIDIA)
/* Tiles of 128 x 256 outputs a block of two warpgroups, each 64 x 256 of them as one wgmma
 * m64n256k16 per 16 along k ($(wgmma.op), f32 accumulators), both operands read from shared memory
 * through matrix descriptors in the 128-byte swizzled layouts, K-major or MN-major as each lies
 * (tokitai_hip/codegen/matrix_core_sm90.h). a's and b's tiles 64 along k go through 4 stages of
 * cp.async copies by all 256 threads, 2 tiles ahead of the two a warpgroup may still read (it
 * waits for its wgmmas of a stage only one stage later). Blocks are persistent over the tiles, and
 * a block's next tile's first stages are fetched before this tile's epilogue. The body exists
 * in sm_90a code alone (empty elsewhere); the launcher takes this kernel only where that code
 * runs and every chunk is whole and aligned (docs/matmul.md). */
template <bool AK, bool BK>
__global__ void __launch_bounds__(256, 1) $(k.symbol)_wgmma($(table.concat(params, ", ")), const tkh_plan tkhm_p)
{
#if defined(TKH_HAS_WGMMA)
    typedef tkh_wg_tile T;
    constexpr int ahead = T::stages - 2; /* k tiles in flight beyond the two the warpgroups may read */
    extern __shared__ __align__(128) unsigned char tkhm_smem[]; /* one name (and alignment) for every kernel of a unit */
    __shared__ int tkhm_wg_mark; /* static shared memory only this body has: the launcher's sign */
    if (threadIdx.x == 0)
        *(volatile int *)&tkhm_wg_mark = 1;
    /* the stages from the first 1024-byte boundary: the swizzle is of address bits 7-9 */
    unsigned char *const tkhm_s = tkhm_smem + (1024 - tkh_smem_address(tkhm_smem) % 1024) % 1024;
    const unsigned s_addr = tkh_smem_address(tkhm_s);
    const int64_t tkhm_k = tkhm_p.size[0], tkhm_n = tkhm_p.size[1], tkhm_m = tkhm_p.size[2];
    const int64_t tkhm_tiles = (tkhm_n + T::bn - 1) / T::bn * ((tkhm_m + T::bm - 1) / T::bm)
        * (tkhm_p.count / (tkhm_n * tkhm_m));
    const int64_t ktiles = (tkhm_k + T::bk - 1) / T::bk;
    const int64_t a_k = tkhm_p.stride[0][0], a_m = tkhm_p.stride[0][2];
    const int64_t b_k = tkhm_p.stride[1][0], b_n = tkhm_p.stride[1][1];
    const unsigned tid = threadIdx.x, wg = tid / 128;
    int64_t at[$(#k.inputs + 1)], m0 = 0, n0 = 0, k_next = 0;
    const $(wgmma.e) *ga = nullptr, *gb = nullptr;
    /* the next k tile of the current output tile into stage 'st': this thread's chunks
     * tid + 256 i of each operand (tkh_wg_chunk), zeros past m, n or k */
    auto fetch = [&](int st) {
        unsigned char *const sa = tkhm_s + st * T::stage, *const sb = sa + T::a_bytes;
#pragma unroll
        for (unsigned i = 0; i < T::bm * T::bk / 8 / 256; ++i) {
            unsigned r, q;
            tkh_wg_chunk(tid + 256 * i, AK, T::bm, &r, &q);
            const int64_t m = m0 + r, kq = k_next + q;
            const bool ok = m < tkhm_m && kq < tkhm_k;
            tkh_copy16_async(sa + tkh_wg_place(AK, r, q, T::bm), ok ? ga + (AK ? m * a_m + kq : kq * a_k + m) : ga, ok);
        }
#pragma unroll
        for (unsigned i = 0; i < T::bn * T::bk / 8 / 256; ++i) {
            unsigned r, q;
            tkh_wg_chunk(tid + 256 * i, BK, T::bn, &r, &q);
            const int64_t n = n0 + r, kq = k_next + q;
            const bool ok = n < tkhm_n && kq < tkhm_k;
            tkh_copy16_async(sb + tkh_wg_place(BK, r, q, T::bn), ok ? gb + (BK ? n * b_n + kq : kq * b_k + n) : gb, ok);
        }
        k_next += T::bk;
    };
    /* output tile t: its place, and its first k tiles into the first stages */
    auto start = [&](int64_t t) {
        $(k.symbol)_place(tkhm_p, t, T::bm, T::bn, at, m0, n0);
        ga = (const $(wgmma.e) *)p_$(a.name) + at[0];
        gb = (const $(wgmma.e) *)p_$(b.name) + at[1];
        k_next = 0;
#pragma unroll
        for (int st = 0; st < ahead; ++st) {
            if (st < ktiles)
                fetch(st);
            tkh_copy_commit();
        }
    };
    int64_t tile = blockIdx.x;
    if (tile < tkhm_tiles)
        start(tile);
    float acc[T::accs];
    for (; tile < tkhm_tiles; tile += gridDim.x) {
#pragma unroll
        for (int v = 0; v < T::accs; ++v)
            acc[v] = 0;
        for (int64_t kt = 0; kt < ktiles; ++kt) {
            tkh_copy_wait<ahead - 1>(); /* k tile kt is in (this thread's chunks) */
            tkh_fence_proxy_async(); /* and visible to wgmma; k tile kt - 2's reads ordered before the next copies */
            __syncthreads(); /* everyone's chunks, and every warpgroup done with k tile kt - 2 */
            const unsigned sa = s_addr + (unsigned)(kt % T::stages) * T::stage, sb = sa + T::a_bytes;
            tkh_wgmma_pin(acc);
            tkh_wgmma_fence();
#pragma unroll
            for (unsigned j = 0; j < T::bk / 16; ++j)
                tkh_wgmma_256<$(wgmma.bf16), !AK, !BK>(acc, tkh_wg_desc_at(sa, AK, T::bm, 64 * wg, j),
                    tkh_wg_desc_at(sb, BK, T::bn, 0, j));
            tkh_wgmma_commit();
            if (kt + ahead < ktiles)
                fetch((int)((kt + ahead) % T::stages)); /* into k tile kt - 2's stage */
            tkh_copy_commit();
            tkh_wgmma_wait<1>(); /* this warpgroup's k tile kt - 1 done */
        }
        tkh_wgmma_wait<0>();
        tkh_wgmma_pin(acc);
        tkh_copy_wait<0>();
        tkh_fence_proxy_async(); /* wgmma's reads (async proxy) before the next copies into the stages */
        __syncthreads(); /* every warpgroup done with the stages: the next tile's first ones may be filled */
        int64_t here[$(#k.inputs + 1)];
#pragma unroll
        for (int x = 0; x < $(#k.inputs + 1); ++x)
            here[x] = at[x];
        const int64_t m_here = m0, n_here = n0;
        if (tile + gridDim.x < tkhm_tiles)
            start(tile + gridDim.x);
#pragma unroll
        for (int v = 0; v < T::accs; ++v) {
            const int64_t m = m_here + tkh_wg_acc_row(tid, v), n = n_here + tkh_wg_acc_col(tid, v);
            if (m < tkhm_m && n < tkhm_n)
                $(k.symbol)_finish($(pass), tkhm_p, here, m, n, ($(R))acc[v]);
        }
    }
#endif
}

/* Whether the current device runs the wgmma kernel's body, and its multiprocessors (in *sms).
 * Host code is compiled once for every target, so the choice is the loaded code's: only sm_90a
 * code has the body's static shared word, which cudaFuncGetAttributes reports for the image this
 * device runs (no stream operation, so it is safe under graph capture). Asked once per device. */
static int $(k.symbol)_wgmma_here(int *sms)
{
    static int known[64]; /* 0 not asked yet, -1 no, else the multiprocessors */
    int device = 0;
    if (hipGetDevice(&device) != hipSuccess || device < 0 || device >= 64)
        return 0;
    int v = __atomic_load_n(&known[device], __ATOMIC_RELAXED);
    if (v == 0) {
        hipFuncAttributes f;
        int n = 0;
        v = hipFuncGetAttributes(&f, (const void *)$(k.symbol)_wgmma<true, true>) == hipSuccess && f.sharedSizeBytes > 0
                && hipDeviceGetAttribute(&n, hipDeviceAttributeMultiprocessorCount, device) == hipSuccess && n > 0
            ? n : -1;
        __atomic_store_n(&known[device], v, __ATOMIC_RELAXED);
    }
    *sms = v;
    return v > 0;
}

/* The wgmma kernel for a's and b's layouts, with its shared memory (the stages and 1 KiB to
 * align them), one block a multiprocessor at most (persistent), over at most 'grid' blocks. */
static int $(k.symbol)_wgmma_launch(int a_kmajor, int b_kmajor, int sms, unsigned grid, void *stream,
    $(table.concat(params, ", ")), const tkh_plan *plan)
{
    typedef tkh_wg_tile T;
    void (*const kernels[4])($(table.concat(params, ", ")), const tkh_plan) = { $(k.symbol)_wgmma<false, false>,
        $(k.symbol)_wgmma<false, true>, $(k.symbol)_wgmma<true, false>, $(k.symbol)_wgmma<true, true> };
    void (*const kernel)($(table.concat(params, ", ")), const tkh_plan) = kernels[2 * a_kmajor + b_kmajor];
    const size_t bytes = (size_t)T::stages * T::stage + 1024;
    hipError_t e = hipFuncSetAttribute((const void *)kernel, hipFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (e != hipSuccess)
        return (int)e;
    const int64_t tiles = (plan->size[1] + T::bn - 1) / T::bn * ((plan->size[2] + T::bm - 1) / T::bm)
        * (plan->count / (plan->size[1] * plan->size[2]));
    int64_t blocks = tiles < (int64_t)grid ? tiles : (int64_t)grid;
    blocks = blocks < sms ? blocks : sms;
    hipLaunchKernelGGL(kernel, dim3((unsigned)(blocks > 0 ? blocks : 1)), dim3(256), bytes, (hipStream_t)stream, $(pass),
        *plan);
    return (int)hipGetLastError();
}
#endif
@ end
