@ -- The launcher of a matrix product's kernels, the last of its parts (templates/matmul.hip.tpl).
@ local L = matmul_locals(k) -- the names every part of a product's source shares (gen/tkh/shapes/matmul.lua)
@ local S, O, float, R, a, b, params, args, pass, out_index, mma, mfma, wgmma = L.S, L.O, L.float, L.R, L.a, L.b, L.params, L.args, L.pass, L.out_index, L.mma, L.mfma, L.wgmma
/* The launcher over a plan of three dimensions or more (k, n, m, then the batch), blocks
 * of 256 threads: the small-m kernel for at most 16 rows, else the matrix-instruction kernel
 * where it fits (on NVIDIA wgmma where the device runs sm_90a code, else mma.sync; MFMA on a
 * gfx90a), else the FMA tiles. */
extern "C" TKH_HIDDEN int $(k.launch)_plan(const void *const *inputs, void *const *outputs,
    const void *const *scalars, const tkh_plan *plan, unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars;
    (void)scratch;
    if (plan->reduced != 1 || plan->ndim < 3 || grid == 0 || block != 256)
        return (int)hipErrorInvalidValue;
    const int small = $(k.symbol)_small_m(inputs, plan, stream, $(table.concat(args, ", ")));
    if (small >= 0)
        return small;
@ if mma then
    int a_kmajor = 0, b_kmajor = 0;
    if ($(k.symbol)_mma_fits(inputs, plan, &a_kmajor, &b_kmajor)) {
@   if wgmma then
#if defined(TKH_PLATFORM_NVIDIA)
        int sms = 0;
        if ($(k.symbol)_wgmma_here(&sms))
            return $(k.symbol)_wgmma_launch(a_kmajor, b_kmajor, sms, grid, stream, $(table.concat(args, ", ")), plan);
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

/* Whether every kernel the launcher may take for 'plan', or for any piece of it (no more
 * rows than the call), on the current device sums in round-to-nearest fused multiply-adds
 * (tkh_product_nearest_fn): the small-m kernel takes every plan of at most TKH_SMALL_M_ROWS
 * rows; above that, a matrix-instruction kernel may take it where the device runs one. */
extern "C" TKH_HIDDEN int $(k.launch)_nearest(const tkh_plan *plan)
{
    if (plan->size[2] <= TKH_SMALL_M_ROWS)
        return 1;
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
