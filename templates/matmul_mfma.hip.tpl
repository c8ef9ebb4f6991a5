@ -- AMD's MFMA kernel of a matrix product (gfx90a), after templates/matmul_projection.hip.tpl.
@ local L = matmul_locals(k) -- the names every part of a product's source shares (gen/tkh/shapes/matmul.lua)
@ local S, O, float, R, a, b, params, args, pass, out_index, mma, mfma = L.S, L.O, L.float, L.R, L.a, L.b, L.params, L.args, L.pass, L.out_index, L.mma, L.mfma
@ -- The MFMA kernel of this type, if any (AMD gfx90a): f16, bf16 and i8 on 16 x 16 x 16
@ -- instructions, f32 and f64 on 16 x 16 x 4 ones. e: the element as the kernel moves it; f: a
@ -- lane's operand of one instruction; acc: its accumulators; op: the instruction's function
@ -- (tokitai_hip/codegen/matrix_core.h), with _tiny and _wide for 16-bit floats.
@ if mfma then
@ -- The loop over the tile's stages from k0 (buffer buf, its operands in fa and fb): the
@ -- products by the instruction's function 'op'; with 'check', left where the next stage's
@ -- operands hold, in a lane of the wave, a value that op would flush (tiny).
@ local function stages(op, check)
        while (k0 < tkhm_k$(check and " && !tiny" or "")) {
            const bool more = k0 + T::kt < tkhm_k;
            if (more)
                fetch(k0 + T::kt);
#pragma unroll
            for (unsigned s = 0; s < T::steps; ++s)
#pragma unroll
                for (unsigned i = 0; i < 4; ++i)
#pragma unroll
                    for (unsigned j = 0; j < 4; ++j)
                        $(op)(acc[i][j], fa[s][i], fb[s][j]);
            if (more)
                keep(buf ^ 1);
            __syncthreads(); /* the next buffer is whole, and this one free for the tile after */
            k0 += T::kt;
            buf ^= 1;
@   if check then
            if (more) {
                operands(buf);
                tiny = tiny_in();
            }
@   else
            if (more)
                operands(buf);
@   end
        }
@ end
#if !defined(TKH_PLATFORM_NVIDIA)
/* Tiles of 128 x 128 outputs a block of 4 waves (AMD gfx90a), each wave 64 x 64 of them as 4 x 4
 * MFMA instructions of 16 x 16 (tokitai_hip/codegen/matrix_core.h: the tiles, the lanes' places);
 * a's and b's tiles 64 bytes along k at a time through two LDS buffers, each thread's two
 * 16-byte chunks of the next one read from memory into registers while the current one is
 * multiplied, as the FMA tiles do. The launcher takes this kernel only where every chunk is
 * whole and aligned (docs/matmul.md). */
template <bool AK, bool BK>
__global__ void __launch_bounds__(256) $(k.symbol)_mfma($(table.concat(params, ", ")), const tkh_plan tkhm_p)
{
#if defined(TKH_HAS_MFMA)
    enum { S = sizeof($(mfma.e)) };
    typedef tkh_mfma_tile<S> T;
    typedef tkh_mfma_chunk<$(mfma.e)> chunk;
    __shared__ __align__(16) $(mfma.e) tkhm_ls[2][2][T::tile]; /* [buffer][a, b] */
    const int64_t tkhm_k = tkhm_p.size[0], tkhm_n = tkhm_p.size[1], tkhm_m = tkhm_p.size[2];
    const int64_t tkhm_tiles = (tkhm_n + T::rows - 1) / T::rows * ((tkhm_m + T::rows - 1) / T::rows)
        * (tkhm_p.count / (tkhm_n * tkhm_m));
    const int64_t a_k = tkhm_p.stride[0][0], a_m = tkhm_p.stride[0][2];
    const int64_t b_k = tkhm_p.stride[1][0], b_n = tkhm_p.stride[1][1];
    const unsigned tid = threadIdx.x, lane = tid % 64;
    unsigned a_row[2], a_kq[2], b_row[2], b_kq[2]; /* where this thread's chunks of a stage start */
#pragma unroll
    for (unsigned q = 0; q < 2; ++q) {
        tkh_mfma_chunk_at<S>(tid + 256 * q, AK, &a_row[q], &a_kq[q]);
        tkh_mfma_chunk_at<S>(tid + 256 * q, BK, &b_row[q], &b_kq[q]);
    }
    for (int64_t tile = blockIdx.x; tile < tkhm_tiles; tile += gridDim.x) {
        int64_t at[$(#k.inputs + 1)], m0, n0;
        $(k.symbol)_place(tkhm_p, tile, T::rows, T::rows, at, m0, n0);
        const $(mfma.e) *ga = (const $(mfma.e) *)p_$(a.name) + at[0], *gb = (const $(mfma.e) *)p_$(b.name) + at[1];
        chunk next_a[2], next_b[2];
        auto fetch = [&](int64_t k0) {
#pragma unroll
            for (unsigned q = 0; q < 2; ++q) {
                const int64_t m = m0 + a_row[q], ka = k0 + a_kq[q], n = n0 + b_row[q], kb = k0 + b_kq[q];
                next_a[q] = m < tkhm_m && ka < tkhm_k ? *(const chunk *)(ga + m * a_m + ka * a_k) : chunk();
                next_b[q] = n < tkhm_n && kb < tkhm_k ? *(const chunk *)(gb + n * b_n + kb * b_k) : chunk();
            }
        };
        auto keep = [&](int buf) {
#pragma unroll
            for (unsigned q = 0; q < 2; ++q) {
                tkh_mfma_keep<S>(tkhm_ls[buf][0], AK, a_row[q], a_kq[q], next_a[q].e);
                tkh_mfma_keep<S>(tkhm_ls[buf][1], BK, b_row[q], b_kq[q], next_b[q].e);
            }
        };
        $(mfma.acc) acc[4][4];
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j)
                acc[i][j] = 0;
        $(mfma.f) fa[T::steps][4], fb[T::steps][4]; /* a stage's operands, read before its products */
        auto operands = [&](int buf) {
#pragma unroll
            for (unsigned s = 0; s < T::steps; ++s)
#pragma unroll
                for (unsigned i = 0; i < 4; ++i) {
                    fa[s][i] = tkh_mfma_frag<S, $(mfma.f)>(tkhm_ls[buf][0], tkh_mfma_tile_row(tid, i) + tkh_mfma_frag_row(lane),
                        tkh_mfma_frag_k<S>(lane, s));
                    fb[s][i] = tkh_mfma_frag<S, $(mfma.f)>(tkhm_ls[buf][1], tkh_mfma_tile_col(tid, i) + tkh_mfma_frag_row(lane),
                        tkh_mfma_frag_k<S>(lane, s));
                }
        };
@ if mfma.wide then
        auto tiny_in = [&]() { /* whether a lane of this wave holds one the 16-bit instruction would flush */
            tkh_u16x2 least = 0xFFFF;
#pragma unroll
            for (unsigned s = 0; s < T::steps; ++s)
#pragma unroll
                for (unsigned i = 0; i < 4; ++i)
                    least = tkh_mfma_least(tkh_mfma_least(least, fa[s][i]), fb[s][i]);
            return __any($(mfma.op)_tiny(least)) != 0;
        };
@ end
        fetch(0);
        keep(0);
        __syncthreads();
        int64_t k0 = 0;
        int buf = 0;
        operands(buf);
@ if mfma.wide then
        /* the 16-bit instruction until this wave meets a value it would flush, then f32
         * instructions on the values widened, for the rest of the tile */
        bool tiny = tiny_in();
@   stages(mfma.op, true)
@   stages(mfma.op .. "_wide", false)
@ else
@   stages(mfma.op, false)
@ end
#pragma unroll
        for (unsigned i = 0; i < 4; ++i)
#pragma unroll
            for (unsigned j = 0; j < 4; ++j)
#pragma unroll
                for (unsigned e = 0; e < 4; ++e) {
                    const int64_t m = m0 + tkh_mfma_tile_row(tid, i) + tkh_mfma_acc_row<S>(lane, e);
                    const int64_t n = n0 + tkh_mfma_tile_col(tid, j) + tkh_mfma_acc_col(lane);
                    if (m < tkhm_m && n < tkhm_n)
                        $(k.symbol)_finish($(pass), tkhm_p, at, m, n, ($(R))acc[i][j][e]);
                }
    }
#endif
}

/* The MFMA kernel's layouts for this plan on this device (2 a_kmajor + b_kmajor), or -1: on
 * a gfx90a only, each operand K-major or MN-major in whole aligned 16-byte chunks, as for
 * the mma kernel on NVIDIA. */
static int $(k.symbol)_mfma_layout(const void *const *inputs, const tkh_plan *p)
{
    if (!tkh_mfma_device())
        return -1;
    const int64_t k = p->size[0], n = p->size[1], m = p->size[2], c = 16 / sizeof($(mfma.e));
    const int64_t a_k = p->stride[0][0], a_m = p->stride[0][2], b_k = p->stride[1][0], b_n = p->stride[1][1];
    for (int d = 3; d < p->ndim; ++d)
        if (p->stride[0][d] % c != 0 || p->stride[1][d] % c != 0)
            return -1;
    if (((uintptr_t)inputs[0] | (uintptr_t)inputs[1]) % 16 != 0)
        return -1;
    const int a_kmajor = a_k == 1 && a_m % c == 0 && k % c == 0, b_kmajor = b_k == 1 && b_n % c == 0 && k % c == 0;
    const int fits = (a_kmajor || (a_m == 1 && a_k % c == 0 && m % c == 0))
        && (b_kmajor || (b_n == 1 && b_k % c == 0 && n % c == 0));
    return fits ? 2 * a_kmajor + b_kmajor : -1;
}

/* The MFMA kernel for the layouts, over at most 'grid' blocks. */
static int $(k.symbol)_mfma_launch(int layout, unsigned grid, void *stream, $(table.concat(params, ", ")),
    const tkh_plan *plan)
{
    void (*const kernels[4])($(table.concat(params, ", ")), const tkh_plan) = { $(k.symbol)_mfma<false, false>,
        $(k.symbol)_mfma<false, true>, $(k.symbol)_mfma<true, false>, $(k.symbol)_mfma<true, true> };
    const int64_t rows = tkh_mfma_tile<sizeof($(mfma.e))>::rows;
    const int64_t tiles = (plan->size[1] + rows - 1) / rows * ((plan->size[2] + rows - 1) / rows)
        * (plan->count / (plan->size[1] * plan->size[2]));
    const unsigned blocks = tiles < (int64_t)grid ? (unsigned)(tiles > 0 ? tiles : 1) : grid;
    hipLaunchKernelGGL(kernels[layout], dim3(blocks), dim3(256), 0, (hipStream_t)stream, $(pass), *plan);
    return (int)hipGetLastError();
}
#endif
@ end
