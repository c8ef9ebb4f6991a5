@ -- The launcher of a matrix product's kernels, the last of its parts (templates/matmul.hip.tpl).
@ local L = matmul_locals(k) -- the names every part of a product's source shares (gen/tkh/shapes/matmul.lua)
@ local S, O, float, R, a, b, params, args, pass, out_index, mma, mfma, wgmma = L.S, L.O, L.float, L.R, L.a, L.b, L.params, L.args, L.pass, L.out_index, L.mma, L.mfma, L.wgmma
/* The kernel for a plan of three dimensions or more (k, n, m, then the batch), blocks of 256
 * threads: the small-m kernel for at most 16 rows, else the matrix-instruction kernel where it
 * fits (on NVIDIA wgmma where the device runs sm_90a code and the operands have tensor maps,
 * else mma.sync; MFMA on a gfx90a), else the FMA tiles. */
static int $(k.symbol)_run(const void *const *inputs, void *const *outputs, const void *const *scalars,
    const tkh_plan *plan, unsigned grid, unsigned block, void *stream)
{
    (void)scalars;
    const int small = $(k.symbol)_small_m(inputs, plan, stream, $(table.concat(args, ", ")));
    if (small >= 0)
        return small;
@ if mma then
    int a_kmajor = 0, b_kmajor = 0;
    if ($(k.symbol)_mma_fits(inputs, plan, &a_kmajor, &b_kmajor)) {
@   if wgmma then
#if defined(TKH_PLATFORM_NVIDIA)
        int sms = 0;
        if ($(wgmma.kmajor_only and "a_kmajor && b_kmajor && " or "")$(k.symbol)_wgmma_here(&sms)) {
            const int narrow = tkh_wg_narrow(plan, sms);
            tkh_wg_maps maps;
            if (tkh_wg_maps_of(&maps, inputs[0], inputs[1], outputs[0], plan, a_kmajor, b_kmajor, $(wgmma.map),
                    $(out_index), $(wgmma.staged and "sizeof(" .. L.O.c .. ")" or "0"), narrow ? 128 : 256))
                return $(k.symbol)_wgmma_launch(narrow, sms, grid, stream, &maps, $(table.concat(args, ", ")), plan);
        }
#endif
@   end
        return $(k.symbol)_mma_launch(a_kmajor, b_kmajor, grid, stream, $(table.concat(args, ", ")), plan);
    }
@ end
@ if mfma then
#if !defined(TKH_PLATFORM_NVIDIA)
    const int layout = $(k.symbol)_mfma_layout(inputs, plan);
    if (layout >= 0)
        return $(k.symbol)_mfma_launch(layout, grid, stream, $(table.concat(args, ", ")), plan);
#endif
@ end
    hipLaunchKernelGGL($(k.symbol)_tiles, dim3(grid), dim3(block), 0, (hipStream_t)stream, $(table.concat(args, ", ")), *plan);
    return (int)hipGetLastError();
}

/* The sums of a split plan's slices of k (the partials, [split][count] in the order of the
 * outputs' index: batch, m, n), each output's added in the order of the slices, then its
 * epilogue and store. A block takes TKHM_SLICE_COLS columns of one output row at a time, a
 * thread 4 of them 256 apart (its loads issued together, each warp's contiguous): where the row
 * and its batch are worked out once for the 4, not three 64-bit divisions an output. */
#define TKHM_SLICE_COLS 1024
__global__ void __launch_bounds__(256) $(k.symbol)_slices($(table.concat(params, ", ")), const tkh_plan tkhm_p,
    const $(R) *__restrict__ part)
{
    const int64_t n = tkhm_p.size[1], m = tkhm_p.size[2], count = tkhm_p.count;
    const int64_t segments = (n + TKHM_SLICE_COLS - 1) / TKHM_SLICE_COLS, pieces = count / n * segments;
    for (int64_t g = blockIdx.x; g < pieces; g += gridDim.x) {
        const int64_t r = g / segments, j0 = g % segments * TKHM_SLICE_COLS + threadIdx.x;
        const $(R) *const row = part + r * n;
        $(R) sum[TKHM_SLICE_COLS / 256] = {};
#pragma unroll
        for (int e = 0; e < TKHM_SLICE_COLS / 256; ++e)
            if (j0 + 256 * e < n)
                sum[e] = row[j0 + 256 * e];
        for (int s = 1; s < tkhm_p.split; ++s)
#pragma unroll
            for (int e = 0; e < TKHM_SLICE_COLS / 256; ++e)
                if (j0 + 256 * e < n)
                    sum[e] += row[s * count + j0 + 256 * e];
        int64_t at[$(#k.inputs + 1)];
        $(k.symbol)_batch(tkhm_p, r / m, at);
#pragma unroll
        for (int e = 0; e < TKHM_SLICE_COLS / 256; ++e)
            if (j0 + 256 * e < n)
                $(k.symbol)_finish($(pass), tkhm_p, at, r % m, j0 + 256 * e, sum[e]);
    }
}

/* The launcher. A plan split along k (plan->split slices of plan->chunk, chosen where the
 * output's tiles are too few for the device: shapes/matmul.c) runs as a plan of one more batch
 * dimension, the slices, whose sums go to 'scratch' (TKH_PLAN_PARTIALS), then the slices' sum
 * and the epilogue. Operands copied into another layout first (tkh_kernel_info.copies) lie in
 * 'scratch' past the partials, from a multiple of 256 bytes. */
extern "C" TKH_HIDDEN int $(k.launch)_plan(const void *const *inputs, void *const *outputs,
    const void *const *scalars, const tkh_plan *plan, unsigned grid, unsigned block, void *scratch, void *stream)
{
    if (plan->reduced != 1 || plan->ndim < 3 || grid == 0 || block != 256)
        return (int)hipErrorInvalidValue;
@ if wgmma and wgmma.kmajor_only then
#if defined(TKH_PLATFORM_NVIDIA)
    tkh_plan copied;
    const void *copies[$(#k.inputs)];
    const int64_t partials = plan->split > 1 ? plan->split * plan->count * (int64_t)sizeof($(R)) : 0;
    const int e0 = $(k.symbol)_kcopy(inputs, plan, scratch ? (unsigned char *)scratch + (partials + 255) / 256 * 256 : NULL,
        copies, &copied, stream);
    if (e0 < 0)
        return (int)hipErrorInvalidValue;
    if (e0 > 0)
        return e0;
    if (copies[0] != NULL)
        inputs = copies, plan = &copied;
#endif
@ end
    if (plan->split <= 1)
        return $(k.symbol)_run(inputs, outputs, scalars, plan, grid, block, stream);
    tkh_plan q;
    if (scratch == NULL || !tkh_plan_slices(plan, $(#k.inputs + 1), $(out_index), &q))
        return (int)hipErrorInvalidValue;
    const uint64_t more = (uint64_t)grid * (uint64_t)plan->split;
    void *const part[1] = { scratch };
    int e = $(k.symbol)_run(inputs, part, scalars, &q, more < (1u << 20) ? (unsigned)more : (1u << 20), block, stream);
    if (e != 0)
        return e;
    const int64_t blocks = plan->count / plan->size[1] * ((plan->size[1] + TKHM_SLICE_COLS - 1) / TKHM_SLICE_COLS);
    hipLaunchKernelGGL($(k.symbol)_slices, dim3((unsigned)(blocks < 4096 ? blocks : 4096)), dim3(256), 0,
        (hipStream_t)stream, $(table.concat(args, ", ")), *plan, (const $(R) *)scratch);
    return (int)hipGetLastError();
}

/* tkh_kernel_info.copies: the bytes of the operands' copies the launcher makes for 'plan'. */
extern "C" TKH_HIDDEN size_t $(k.launch)_copies(const void *const *inputs, const tkh_plan *plan)
{
@ if wgmma and wgmma.kmajor_only then
#if defined(TKH_PLATFORM_NVIDIA)
    tkh_wg_copy copy[2];
    tkh_plan q;
    return (size_t)$(k.symbol)_kcopies(inputs, plan, copy, &q);
#else
    (void)inputs, (void)plan;
    return 0;
#endif
@ else
    (void)inputs, (void)plan;
    return 0;
@ end
}

/* Whether every kernel the launcher may take for 'plan', or for any piece of it (no more
 * rows than the call), on the current device sums in round-to-nearest fused multiply-adds
 * (tkh_product_nearest_fn): the small-m kernel takes every plan of at most TKH_SMALL_M_ROWS
 * rows, on its fused multiply-adds but for 16-bit floats on NVIDIA sm_80 and later; above
 * that, a matrix-instruction kernel may take it where the device runs one. */
extern "C" TKH_HIDDEN int $(k.launch)_nearest(const tkh_plan *plan)
{
    if (plan->size[2] <= TKH_SMALL_M_ROWS) {
@ if mma and mma.epc == 8 then
#if defined(TKH_PLATFORM_NVIDIA)
        if (tkh_mma_device())
            return 0; /* the small-m kernel on the matrix instruction may take it */
#endif
@ end
        return 1;
    }
@ if mma and not mma.fma then
#if defined(TKH_PLATFORM_NVIDIA)
    if (tkh_mma_device())
        return 0;
#endif
@ end
@ if mfma then
#if !defined(TKH_PLATFORM_NVIDIA)
    if (tkh_mfma_device())
        return 0;
#endif
@ end
    return 1;
}

#undef TKHM_BM
#undef TKHM_BN
#undef TKHM_BK
#undef TKHM_PAD
#undef TKHM_SLICE_COLS
