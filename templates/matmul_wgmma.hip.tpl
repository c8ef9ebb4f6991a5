@ -- Hopper's wgmma kernel of a 16-bit or i8 matrix product (NVIDIA sm_90a), after templates/matmul_mma.hip.tpl.
@ local L = matmul_locals(k) -- the names every part of a product's source shares (gen/tkh/shapes/matmul.lua)
@ local S, O, float, R, a, b, params, args, pass, out_index, wgmma = L.S, L.O, L.float, L.R, L.a, L.b, L.params, L.args, L.pass, L.out_index, L.wgmma
@ if wgmma then
#if defined(TKH_PLATFORM_NVIDIA)
/* Tiles of 128 x BN outputs a block (BN 256, or 128 where tkh_wg_narrow says): two consumer
 * warpgroups, each 64 x BN of them as one wgmma per 32 bytes along k
 * ($(wgmma.op)), both operands read from shared memory through matrix
 * descriptors in the 128-byte swizzled layouts, K-major or MN-major as each lies (8-bit operands K-major only:
 * the launcher copies them so; the layouts come with the maps, one kernel for all four); and a
 * producer warpgroup, one thread of which fills the stages of a's and b's tiles 128 bytes along k
 * by the tensor memory accelerator's copies (tokitai_hip/codegen/matrix_core_sm90.h). A stage's
 * 'full' barrier tells the consumers its bytes have landed, its 'empty' one the producer that
 * every consumer warp is done with it, so the copies run ahead across tiles, under the epilogue
 * too.
 * Blocks are persistent over the tiles. The body exists in sm_90a code alone (empty elsewhere);
 * the launcher takes this kernel only where that code runs, every chunk is whole and aligned and
 * the operands have tensor maps (docs/matmul.md). */
template <int BN>
__global__ void __launch_bounds__(384, 1) $(k.symbol)_wgmma($(table.concat(params, ", ")), const tkh_plan tkhm_p,
    const __grid_constant__ tkh_wg_maps tkhm_maps)
{
#if defined(TKH_HAS_WGMMA)
    typedef tkh_wg_tile_of<sizeof($(wgmma.e)), BN> T;
    extern __shared__ __align__(128) unsigned char tkhm_smem[]; /* one name (and alignment) for every kernel of a unit */
    /* static shared memory only this body has: the launcher's sign */
    __shared__ __align__(8) uint64_t tkhm_full[T::stages], tkhm_empty[T::stages];
    /* the stages from the first 1024-byte boundary: the swizzle is of address bits 7-9 */
    unsigned char *const tkhm_s = tkhm_smem + (1024 - tkh_smem_address(tkhm_smem) % 1024) % 1024;
    const unsigned s_addr = tkh_smem_address(tkhm_s);
    const unsigned full0 = tkh_smem_address(tkhm_full), empty0 = tkh_smem_address(tkhm_empty);
    const int64_t tkhm_k = tkhm_p.size[0], tkhm_n = tkhm_p.size[1], tkhm_m = tkhm_p.size[2];
    const int64_t plane = (tkhm_n + T::bn - 1) / T::bn * ((tkhm_m + T::bm - 1) / T::bm);
    const int64_t tkhm_tiles = plane * (tkhm_p.count / (tkhm_n * tkhm_m));
    const int64_t ktiles = (tkhm_k + T::bk - 1) / T::bk;
    const unsigned tid = threadIdx.x;
    if (tid == 0) {
        for (int st = 0; st < T::stages; ++st) {
            tkh_mbar_init(full0 + 8 * st, 1);
            tkh_mbar_init(empty0 + 8 * st, 8); /* the consumers' 8 warps */
        }
        tkh_mbar_init_fence();
    }
    __syncthreads();
    unsigned st = 0, phase = 0; /* the stage and its barriers' parity, as both sides go round */
    int64_t at[$(#k.inputs + 1)], m0 = 0, n0 = 0;
    if (tid < 128) { /* the producer */
        tkh_regs_fewer<40>();
        if (tid != 0)
            return;
        const bool kmajor[2] = { tkhm_maps.kmajor[0] != 0, tkhm_maps.kmajor[1] != 0 };
        const unsigned rows[2] = { T::bm, T::bn }, tile_at[2] = { 0, T::a_bytes };
        for (int64_t tile = blockIdx.x; tile < tkhm_tiles; tile += gridDim.x) {
            $(k.symbol)_place(tkhm_p, tile, T::bm, T::bn, at, m0, n0);
            int32_t c[2][5];
            int64_t k0[2];
            for (unsigned x = 0; x < 2; ++x)
                k0[x] = tkh_wg_coords(&tkhm_p, &tkhm_maps.g[x], tile / plane, c[x]);
            for (int64_t kt = 0; kt < ktiles; ++kt) {
                tkh_mbar_wait(empty0 + 8 * st, phase ^ 1);
                tkh_mbar_arrive_expect(full0 + 8 * st, T::stage);
                for (unsigned x = 0; x < 2; ++x)
                    for (unsigned i = 0; i < tkh_wg_boxes(kmajor[x], rows[x]); ++i) {
                        const unsigned box = tkh_wg_box(kmajor[x], i, x ? n0 : m0, k0[x] + kt * T::bk, c[x]);
                        tkh_tma_load(s_addr + st * T::stage + tile_at[x] + box, &tkhm_maps.map[x], full0 + 8 * st, c[x],
                            tkhm_maps.g[x].rank);
                    }
                if (++st == T::stages)
                    st = 0, phase ^= 1;
            }
        }
        return;
    }
    tkh_regs_more<232>(); /* the consumers */
    const unsigned ct = tid - 128, wg = ct / 128;
    $(wgmma.acc) acc[T::accs];
    for (int64_t tile = blockIdx.x; tile < tkhm_tiles; tile += gridDim.x) {
#pragma unroll
        for (int v = 0; v < T::accs; ++v)
            acc[v] = 0;
        unsigned last = 0;
        for (int64_t kt = 0; kt < ktiles; ++kt) {
            tkh_mbar_wait(full0 + 8 * st, phase);
            const unsigned sa = s_addr + st * T::stage, sb = sa + T::a_bytes;
            auto steps = [&](auto AK, auto BK) { /* a's and b's layouts, tkh_bool */
                tkh_wgmma_pin(acc);
                tkh_wgmma_fence();
#pragma unroll
                for (unsigned j = 0; j < T::steps; ++j)
                    $(wgmma.mma)(acc, tkh_wg_desc_at(sa, AK.value, 64 * wg, j), tkh_wg_desc_at(sb, BK.value, 0, j));
                tkh_wgmma_commit();
            };
@ if wgmma.kmajor_only then
            steps(tkh_bool<true>(), tkh_bool<true>());
@ else
            tkh_wg_layouts(tkhm_maps.kmajor[0] != 0, tkhm_maps.kmajor[1] != 0, steps);
@ end
            tkh_wgmma_wait<1>(); /* this warpgroup's k tile kt - 1 done: its stage is free */
            if (kt > 0 && ct % 32 == 0)
                tkh_mbar_arrive(empty0 + 8 * last);
            last = st;
            if (++st == T::stages)
                st = 0, phase ^= 1;
        }
        tkh_wgmma_wait<0>();
        tkh_wgmma_pin(acc);
        if (ktiles > 0 && ct % 32 == 0)
            tkh_mbar_arrive(empty0 + 8 * last);
        $(k.symbol)_place(tkhm_p, tile, T::bm, T::bn, at, m0, n0);
@ if wgmma.staged then
        /* each array's offsets of this thread's two rows and first column, worked out once: an
         * accumulator's output then costs a multiply-add an array (its column step is constant) */
        const int64_t m = m0 + tkh_wg_acc_row(ct, 0), n = n0 + tkh_wg_acc_col(ct, 0);
        int64_t row[2][$(#k.inputs + 1)], s_n[$(#k.inputs + 1)];
#pragma unroll
        for (int x = 0; x < $(#k.inputs + 1); ++x) {
            s_n[x] = tkhm_p.stride[x][1];
            row[0][x] = at[x] + m * tkhm_p.stride[x][2] + n * s_n[x];
            row[1][x] = row[0][x] + 8 * tkhm_p.stride[x][2]; /* tkh_wg_acc_dm's other row */
        }
        /* the outputs through shared memory where the output has a map (2-byte elements): each
         * consumer warpgroup writes its 64 rows by 128 columns at a time in pairs of columns, then
         * one thread stores them by the accelerator, two boxes of 64 x 64, which leave out what
         * lies past m or n */
        auto rounds = [&](int64_t tile) {
            const unsigned buffer = s_addr + T::stages * T::stage + wg * (T::out_bytes / 2);
            unsigned char *const out_s = tkhm_s + (buffer - s_addr);
            int32_t c[5];
            tkh_wg_coords(&tkhm_p, &tkhm_maps.g[2], tile / plane, c);
            const unsigned r0 = tkh_wg_acc_row(ct, 0) - 64 * wg, c0 = tkh_wg_acc_col(ct, 0);
#pragma unroll
            for (int h = 0; h < T::bn / T::round; ++h) {
                if (ct % 128 == 0)
                    tkh_bulk_wait_read(); /* the last round's stores have read the buffer */
                tkh_warpgroup_sync(1 + wg);
#pragma unroll
                for (int q = 0; q < T::round / 4; ++q) { /* constant bounds: acc stays in registers */
                    const int v = h * T::round / 2 + 2 * q; /* a round's columns: T::round / 2 sums a thread */
                    const unsigned dm = tkh_wg_acc_dm(v), dn = tkh_wg_acc_dn(v); /* v + 1: column dn + 1 */
                    $(O.c) pair[2];
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        int64_t off[$(#k.inputs + 1)];
#pragma unroll
                        for (int x = 0; x < $(#k.inputs + 1); ++x)
                            off[x] = row[dm / 8][x] + (dn + e) * s_n[x];
                        pair[e] = m + dm < tkhm_m && n + dn + e < tkhm_n ? $(k.symbol)_value($(pass), off, ($(R))acc[v + e])
                                                                       : ($(O.c))0;
                    }
                    uint32_t word;
                    TKH_BITCOPY(&word, pair, 4);
                    *(uint32_t *)(out_s + tkh_wg_out_place(r0 + dm, c0 + dn - h * T::round)) = word;
                }
                tkh_fence_proxy_async(); /* the writes visible to the stores' reads */
                tkh_warpgroup_sync(1 + wg);
                if (ct % 128 == 0) {
#pragma unroll
                    for (int i = 0; i < T::round / 64; ++i) {
                        c[0] = (int32_t)(n0 + h * T::round + 64 * i);
                        c[1] = (int32_t)(m0 + 64 * wg);
                        tkh_tma_store(&tkhm_maps.map[2], buffer + i * T::box, c, tkhm_maps.g[2].rank);
                    }
                    tkh_bulk_commit();
                }
            }
        };
        auto epilogue = [&](auto partials) {
#pragma unroll
            for (int v = 0; v < T::accs; ++v) {
                const unsigned dm = tkh_wg_acc_dm(v), dn = tkh_wg_acc_dn(v);
                if (m + dm < tkhm_m && n + dn < tkhm_n) {
                    int64_t off[$(#k.inputs + 1)];
#pragma unroll
                    for (int x = 0; x < $(#k.inputs + 1); ++x)
                        off[x] = row[dm / 8][x] + dn * s_n[x];
                    $(k.symbol)_store<decltype(partials)::value>($(pass), off, ($(R))acc[v]);
                }
            }
        };
        if (sizeof($(O.c)) == 2 && tkhm_maps.store) /* the launcher makes no output map for other sizes */
            rounds(tile);
        else if (tkhm_p.mode == TKH_PLAN_PARTIALS)
            epilogue(tkh_bool<true>());
        else
            epilogue(tkh_bool<false>());
@ else
        /* the epilogues that call the math library (unrolled at each of a thread's 128 sums, their
         * code overflows the instruction cache): each consumer warpgroup's sums through shared
         * memory, 64 columns at a time as f32 (row r's groups of 8 columns swizzled by r % 8, so
         * that neither side's accesses conflict), then a loop not unrolled over them, one output
         * a thread an iteration, a warp's 32 along a row */
        float *const raw = (float *)(tkhm_s + T::stages * T::stage + wg * (T::out_bytes / 2));
        const unsigned r0 = tkh_wg_acc_row(ct, 0) - 64 * wg, c0 = tkh_wg_acc_col(ct, 0);
#pragma unroll
        for (int h = 0; h < T::bn / 64; ++h) {
            tkh_warpgroup_sync(1 + wg); /* the last round's reads are done */
#pragma unroll
            for (int q = 0; q < 16; ++q) { /* sums v, v + 1: columns dn, dn + 1 of row dm (32 sums a thread in 64 columns) */
                const int v = h * 32 + 2 * q;
                const unsigned r = r0 + tkh_wg_acc_dm(v), c = c0 + tkh_wg_acc_dn(v) - 64 * h;
                *(float2 *)(raw + r * 64 + (c ^ 8 * (r % 8))) = make_float2(acc[v], acc[v + 1]);
            }
            tkh_warpgroup_sync(1 + wg);
#pragma unroll 1
            for (unsigned e = ct % 128; e < 64 * 64; e += 128) {
                const unsigned r = e / 64, c = e % 64;
                const int64_t mm = m0 + 64 * wg + r, nn = n0 + 64 * h + c;
                if (mm < tkhm_m && nn < tkhm_n)
                    $(k.symbol)_finish($(pass), tkhm_p, at, mm, nn, ($(R))raw[r * 64 + (c ^ 8 * (r % 8))]);
            }
        }
@ end
    }
@ if wgmma.staged then
    if (ct % 128 == 0)
        tkh_bulk_wait(); /* this warpgroup's last stores done before its shared memory goes */
@ end
#endif
}

/* Whether the current device runs the wgmma kernel's body: its multiprocessors where it does,
 * else -1. Host code is compiled once for every target, so the choice is the loaded code's:
 * only sm_90a code has the body's static shared memory (its barriers), which
 * cudaFuncGetAttributes reports for the image this device runs (no stream operation, so it is
 * safe under graph capture). */
static int $(k.symbol)_wgmma_ask(int device)
{
    (void)device; /* the current one, which tkh_device_fact asks about */
    hipFuncAttributes f;
    int n = 0;
    return hipFuncGetAttributes(&f, (const void *)$(k.symbol)_wgmma<256>) == hipSuccess && f.sharedSizeBytes > 0
            && (n = tkh_mma_sms()) > 0
        ? n : -1;
}

/* Whether the current device runs the wgmma kernel's body, and its multiprocessors (in *sms):
 * asked once per device. */
static int $(k.symbol)_wgmma_here(int *sms)
{
    static int known[64];
    *sms = tkh_device_fact(known, $(k.symbol)_wgmma_ask);
    return *sms > 0;
}

/* The wgmma kernel of tiles of 128 x 128 (narrow) or 128 x 256 outputs with the tensor maps made
 * for them (and a's and b's layouts), with its shared memory, one block a multiprocessor at most
 * (persistent), over at most 'grid' blocks. */
static int $(k.symbol)_wgmma_launch(int narrow, int sms, unsigned grid, void *stream,
    const tkh_wg_maps *maps, $(table.concat(params, ", ")), const tkh_plan *plan)
{
    typedef void (*kernel_fn)($(table.concat(params, ", ")), const tkh_plan, const tkh_wg_maps);
    const kernel_fn kernel = narrow ? $(k.symbol)_wgmma<128> : $(k.symbol)_wgmma<256>;
    typedef tkh_wg_tile_of<sizeof($(wgmma.e)), 256> W;
    typedef tkh_wg_tile_of<sizeof($(wgmma.e)), 128> N;
    const size_t bytes = narrow ? (size_t)N::smem : (size_t)W::smem; /* staged outputs, or looped sums */
    hipError_t e = hipFuncSetAttribute((const void *)kernel, hipFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (e != hipSuccess)
        return (int)e;
    const int64_t bn = narrow ? (int64_t)N::bn : (int64_t)W::bn;
    const int64_t tiles = (plan->size[1] + bn - 1) / bn * ((plan->size[2] + W::bm - 1) / W::bm)
        * (plan->count / (plan->size[1] * plan->size[2]));
    int64_t blocks = tiles < (int64_t)grid ? tiles : (int64_t)grid;
    blocks = blocks < sms ? blocks : sms;
    hipLaunchKernelGGL(kernel, dim3((unsigned)(blocks > 0 ? blocks : 1)), dim3(W::threads), bytes, (hipStream_t)stream,
        $(pass), *plan, *maps);
    return (int)hipGetLastError();
}
@ if wgmma.kmajor_only then

/* An 8-bit operand's K-major copy (tkh_wg_copy of an MN-major operand: its rows contiguous, every
 * offset a whole number of 16 bytes, as _mma_fits requires): tiles of 64 k by 64 rows through
 * shared memory, each thread reading 16 bytes of one k's rows and writing 16 of one row's k. The
 * 16-byte chunk of rows 16 c.. of line kk lies at chunk c ^ (kk / 16) % 4, so that the 32 threads
 * of a warp gathering a row's k from 4 chunk lines read 8 different banks. The copy's batches
 * over blockIdx.z. */
__global__ void __launch_bounds__(256) $(k.symbol)_kcopy_tiles(const int8_t *__restrict__ from, int8_t *__restrict__ to,
    const tkh_wg_copy c)
{
    __shared__ __align__(16) unsigned char t[64][64];
    const int64_t r0 = (int64_t)blockIdx.x * 64, k0 = (int64_t)blockIdx.y * 64;
    const unsigned kk = threadIdx.x / 4, rc = threadIdx.x % 4; /* the load's line and chunk */
    const unsigned row = threadIdx.x / 4, kc = threadIdx.x % 4;  /* the store's row and chunk */
    for (int64_t b = blockIdx.z; b < c.batches; b += gridDim.z) {
        const int8_t *const src = from + tkh_wg_copy_from(&c, b);
        int8_t *const dst = to + b * c.rows * c.k;
        uint4 v = make_uint4(0, 0, 0, 0);
        if (k0 + kk < c.k && r0 + 16 * rc < c.rows)
            v = *(const uint4 *)(src + (k0 + kk) * c.from_k + r0 + 16 * rc);
        *(uint4 *)&t[kk][16 * (rc ^ kk / 16 % 4)] = v;
        __syncthreads();
        uint32_t w[4] = { 0, 0, 0, 0 };
#pragma unroll
        for (unsigned j = 0; j < 16; ++j)
            w[j / 4] |= (uint32_t)t[16 * kc + j][16 * (row / 16 ^ kc) + row % 16] << 8 * (j % 4);
        if (r0 + row < c.rows && k0 + 16 * kc < c.k)
            *(uint4 *)(dst + (r0 + row) * c.k + k0 + 16 * kc) = make_uint4(w[0], w[1], w[2], w[3]);
        __syncthreads();
    }
}

/* The K-major copies the wgmma kernel needs for 'plan' (not split): where it would take the plan
 * (an sm_90a device, more than TKH_SMALL_M_ROWS rows, whole 16-byte chunks; k a multiple of 16,
 * tkh_wg_copy_of) but for an MN-major operand, that operand's copy in copy[x] (copy[x].k 0 for
 * the others) and in *q the plan over the copies. Returns their bytes, each rounded up to 256; 0 where none is
 * made (the kernel would not run, both operands are K-major, or the copies would take more than
 * TKH_WG_COPY_MAX). */
static int64_t $(k.symbol)_kcopies(const void *const *inputs, const tkh_plan *plan, tkh_wg_copy copy[2], tkh_plan *q)
{
    int sms = 0, kmajor[2] = { 0, 0 };
    if (plan->mode == TKH_PLAN_PARTIALS || plan->size[2] <= TKH_SMALL_M_ROWS || !$(k.symbol)_wgmma_here(&sms)
        || !$(k.symbol)_mma_fits(inputs, plan, &kmajor[0], &kmajor[1]) || (kmajor[0] && kmajor[1]))
        return 0;
    int64_t bytes = 0;
    *q = *plan;
    for (unsigned x = 0; x < 2; ++x) {
        copy[x].k = 0;
        if (kmajor[x])
            continue;
        const int64_t b = tkh_wg_copy_of(q, x, &copy[x], q);
        if (b <= 0 || copy[x].from_r != 1 || (copy[x].k + 63) / 64 > 65535)
            return 0;
        bytes += (b + 255) / 256 * 256;
    }
    tkh_wg_geometry g;
    return bytes <= TKH_WG_COPY_MAX && tkh_wg_geometry_of(q, 0, true, &g, 1) && tkh_wg_geometry_of(q, 1, true, &g, 1)
        ? bytes : 0;
}

/* Makes those copies at 'to' on 'stream': in[] then holds the inputs with the copies in place of
 * the operands and *q the plan over them; in[0] is NULL where no copy is made. Returns 0, -1
 * where copies are needed and 'to' is NULL, else the runtime's error code of a launch. */
static int $(k.symbol)_kcopy(const void *const *inputs, const tkh_plan *plan, unsigned char *to, const void **in,
    tkh_plan *q, void *stream)
{
    tkh_wg_copy copy[2];
    in[0] = NULL;
    if ($(k.symbol)_kcopies(inputs, plan, copy, q) == 0)
        return 0;
    if (to == NULL)
        return -1;
    for (unsigned i = 0; i < $(#k.inputs); ++i)
        in[i] = inputs[i];
    for (unsigned x = 0; x < 2; ++x)
        if (copy[x].k > 0) {
            const dim3 grid((unsigned)((copy[x].rows + 63) / 64), (unsigned)((copy[x].k + 63) / 64),
                (unsigned)(copy[x].batches < 65535 ? copy[x].batches : 65535));
            hipLaunchKernelGGL($(k.symbol)_kcopy_tiles, grid, dim3(256), 0, (hipStream_t)stream,
                (const int8_t *)inputs[x], (int8_t *)to, copy[x]);
            const hipError_t e = hipGetLastError();
            if (e != hipSuccess)
                return (int)e;
            in[x] = to;
            to += (copy[x].batches * copy[x].rows * copy[x].k + 255) / 256 * 256;
        }
    return 0;
}
@ end
#endif
@ end
