/* The wgmma kernel's maps (tokitai_hip/codegen/matrix_core_sm90.h) on the CPU: one block's tile of
 * a 16-bit or 8-bit product computed as the kernel computes it, through exactly its functions (each
 * operand's tensor-map geometry and a batch's coordinates in it, the boxes of a stage and their
 * places in shared memory, the descriptors of each instruction, the accumulators' outputs), with
 * the tensor memory accelerator's tiled copy and wgmma.mma_async m64n256k16 (m64n256k32 for 8-bit
 * operands) emulated from their
 * documented semantics, written here apart from the kernel's functions: the copy (CUDA driver API,
 * cuTensorMapEncodeTiled; PTX ISA, cp.async.bulk.tensor: the box at the coordinates, its first
 * dimension innermost, stored densely, elements outside the tensor zero, the 128-byte swizzle
 * XORing address bits 4-6 with bits 7-9), the descriptor's fields (PTX ISA, matrix descriptor
 * format), the canonical 128-byte-swizzled layouts it describes (K-major: 8 rows of 128 bytes,
 * 8-row groups at the stride offset; MN-major: 64 rows of a k in 128 bytes, 64-row groups at the
 * leading offset, 8-k groups at the stride offset) and the D fragment (thread t of the
 * warpgroup, register v: row 16 (t / 32) + (t % 32) / 4 + 8 (v / 2 % 2), column 8 (v / 4) + 2 (t %
 * 4) + v % 2). Every layout of a and b, full tiles and tiles cut at m, n and k, batches in which
 * an operand moves or not and a plan split into slices of k, against loops over the plan's own
 * strides; 8-bit operands (K-major only) through the launcher's K-major copies of the others
 * (tkh_wg_copy_of). Integer values, so every sum is exact. This checks the maps against the
 * documented semantics, not against the hardware. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* C++ headers before cmocka.h, whose fail() macro they would meet; cmocka.h declares C
 * functions without extern "C" */
#include <vector>

#include "tokitai_hip/codegen/matrix_core_sm90.h"

extern "C" {
#include <cmocka.h>
}

#include "tile_emulation.h"

typedef tkh_wg_tile T;

/* The shared memory of one stage, at a 1024-aligned address that is not 0, as the kernel's. */
static const unsigned smem_base = 3 * 1024;

template <class El> static El element(const std::vector<unsigned char> &smem, unsigned address)
{
    El v;
    assert_true(address >= smem_base && address + sizeof(El) <= smem_base + smem.size());
    memcpy(&v, &smem[address - smem_base], sizeof(El));
    return v;
}

/* Where an instruction reads element (x, kk) of its operand (x along m or n, kk < 32 / E), from
 * the descriptor alone: its canonical layout for a K-major or (tnsp, 2-byte elements) MN-major
 * operand of E-byte elements, swizzled. */
static unsigned operand_address(uint64_t desc, bool tnsp, unsigned x, unsigned kk, unsigned E)
{
    const unsigned start = (unsigned)(desc & 0x3FFF) << 4, leading = (unsigned)(desc >> 16 & 0x3FFF) << 4;
    const unsigned stride = (unsigned)(desc >> 32 & 0x3FFF) << 4;
    assert_int_equal(desc >> 62, 1); /* the 128-byte swizzle */
    assert_int_equal(desc >> 49 & 7, 0); /* no base offset: atoms 1024-aligned */
    const unsigned at = tnsp ? start + (x % 64) * 2 + (x / 64) * leading + (kk % 8) * 128 + (kk / 8) * stride
                             : start + (x % 8) * 128 + (x / 8) * stride + kk * E;
    return at ^ ((at >> 7 & 7) << 4);
}

/* The accelerator's copy of the box at c of the tensor g describes over memory g0 (elements El)
 * into the stage at byte 'dst' (1024-aligned), each byte counted in 'slots'. */
template <class El> static void tma_copy(const tkh_wg_geometry &g, const std::vector<El> &g0, const int32_t c[5],
    std::vector<unsigned char> &smem, unsigned dst, std::vector<int> &slots)
{
    const int64_t E = sizeof(El);
    for (uint32_t i1 = 0; i1 < g.box[1]; ++i1)
        for (uint32_t i0 = 0; i0 < g.box[0]; ++i0) {
            int64_t v = 0, at = 0;
            bool inside = true;
            for (int d = 0; d < g.rank; ++d) {
                const int64_t x = (int64_t)c[d] + (d == 0 ? i0 : d == 1 ? i1 : 0);
                inside = inside && x >= 0 && x < (int64_t)g.size[d];
                at += d == 0 ? x * E : x * (int64_t)g.stride[d - 1];
            }
            if (inside) {
                assert_true(at % E == 0 && at / E < (int64_t)g0.size());
                v = g0[at / E];
            }
            unsigned o = (unsigned)((i1 * g.box[0] + i0) * E);
            o ^= (o >> 7 & 7) << 4;
            assert_true(dst + o + E <= smem.size()); /* the box inside the stage */
            const El e = (El)v;
            memcpy(&smem[dst + o], &e, E);
            for (int64_t i = 0; i < E; ++i)
                ++slots[dst + o + i];
        }
}

/* The block at (m0, n0) of batch 'batch' of plan q (a and b at ga and gb, elements El, in the
 * layouts ak, bk) as the kernel of tiles 128 x BN computes it: out[v + T::accs tid] is consumer
 * thread tid's accumulator v. */
template <class El, int BN> static std::vector<int64_t> block_of(const tkh_plan &q, const std::vector<El> &ga,
    const std::vector<El> &gb, bool ak, bool bk, int64_t batch, int64_t m0, int64_t n0)
{
    typedef tkh_wg_tile_of<sizeof(El), BN> T;
    const unsigned E = sizeof(El);
    tkh_wg_geometry g[2];
    const bool kmajor[2] = { ak, bk };
    const unsigned rows[2] = { T::bm, T::bn }, tile_at[2] = { 0, T::a_bytes };
    const std::vector<El> *mem[2] = { &ga, &gb };
    int32_t c[2][5];
    int64_t k0[2];
    for (unsigned x = 0; x < 2; ++x) {
        assert_true(tkh_wg_geometry_of(&q, x, kmajor[x], &g[x], E, T::bn));
        k0[x] = tkh_wg_coords(&q, &g[x], batch, c[x]);
    }
    std::vector<int64_t> acc(256 * T::accs, 0); /* [tid][v] */
    std::vector<unsigned char> smem(T::stage);
    for (int64_t kt = 0; kt < (q.size[0] + T::bk - 1) / T::bk; ++kt) {
        std::fill(smem.begin(), smem.end(), (unsigned char)0x77); /* poison: a read of what no copy wrote shows */
        std::vector<int> slots(T::stage, 0);
        for (unsigned x = 0; x < 2; ++x)
            for (unsigned i = 0; i < tkh_wg_boxes(kmajor[x], rows[x]); ++i) {
                const unsigned at = tkh_wg_box(kmajor[x], i, x ? n0 : m0, k0[x] + kt * T::bk, c[x]);
                tma_copy(g[x], *mem[x], c[x], smem, tile_at[x] + at, slots);
            }
        for (int s : slots)
            assert_int_equal(s, 1); /* the boxes fill the stage (the bytes the barrier expects), each byte once */
        /* each warpgroup's 4 instructions, emulated from the descriptors the kernel makes */
        for (unsigned wg = 0; wg < 2; ++wg)
            for (unsigned j = 0; j < T::steps; ++j) {
                const uint64_t da = tkh_wg_desc_at(smem_base, ak, 64 * wg, j);
                const uint64_t db = tkh_wg_desc_at(smem_base + T::a_bytes, bk, 0, j);
                std::vector<int64_t> d(64 * T::bn, 0);
                for (unsigned x = 0; x < 64; ++x)
                    for (unsigned kk = 0; kk < 32 / E; ++kk) {
                        const int64_t av = element<El>(smem, operand_address(da, !ak, x, kk, E));
                        if (av != 0)
                            for (unsigned y = 0; y < T::bn; ++y)
                                d[x * T::bn + y] += av * element<El>(smem, operand_address(db, !bk, y, kk, E));
                    }
                for (unsigned t = 0; t < 128; ++t)
                    for (unsigned v = 0; v < T::accs; ++v) {
                        const unsigned row = 16 * (t / 32) + t % 32 / 4 + 8 * (v / 2 % 2), col = 8 * (v / 4) + 2 * (t % 4) + v % 2;
                        acc[(128 * wg + t) * T::accs + v] += d[row * T::bn + col];
                    }
            }
    }
    return acc;
}

/* The consumers' epilogue through the accelerator's stores, for the block at (m0, n0) of batch
 * 'batch' of q whose accumulators are acc: each warpgroup's rounds of 64 rows by 128 columns
 * written in pairs of columns where tkh_wg_out_place says, then stored as two boxes of 64 x 64 at
 * the coordinates the kernel gives, the store emulated from its documented semantics (the box read
 * densely from shared memory under the 128-byte swizzle, written where it lies inside the
 * tensor, left out past its extents) into gout (2-byte elements at the output's strides). */
template <int BN> static void store_block(const tkh_plan &q, const std::vector<int64_t> &acc, int64_t batch,
    int64_t m0, int64_t n0, std::vector<int16_t> &gout)
{
    typedef tkh_wg_tile_of<2, BN> T;
    tkh_wg_geometry g;
    assert_true(tkh_wg_out_geometry(&q, 2, &g));
    for (unsigned wg = 0; wg < 2; ++wg)
        for (unsigned h = 0; h < T::bn / T::round; ++h) {
            std::vector<unsigned char> smem(T::out_bytes / 2, 0x77);
            std::vector<int> slots(T::out_bytes / 2, 0);
            for (unsigned ct = 128 * wg; ct < 128 * wg + 128; ++ct) {
                const unsigned r0 = tkh_wg_acc_row(ct, 0) - 64 * wg, c0 = tkh_wg_acc_col(ct, 0);
                for (unsigned x = 0; x < T::round / 4; ++x) {
                    const unsigned v = h * T::round / 2 + 2 * x, dm = tkh_wg_acc_dm(v), dn = tkh_wg_acc_dn(v);
                    const unsigned place = tkh_wg_out_place(r0 + dm, c0 + dn - h * T::round);
                    assert_true(place % 4 == 0 && place + 4 <= smem.size());
                    for (unsigned e = 0; e < 2; ++e) {
                        const int16_t value = (int16_t)acc[ct * T::accs + v + e];
                        memcpy(&smem[place + 2 * e], &value, 2);
                        ++slots[place + 2 * e], ++slots[place + 2 * e + 1];
                    }
                }
            }
            for (int n : slots)
                assert_int_equal(n, 1); /* each byte of the round's buffer written once */
            int32_t c[5];
            tkh_wg_coords(&q, &g, batch, c);
            for (unsigned i = 0; i < T::round / 64; ++i) {
                c[0] = (int32_t)(n0 + h * T::round + 64 * i);
                c[1] = (int32_t)(m0 + 64 * wg);
                for (uint32_t i1 = 0; i1 < g.box[1]; ++i1)
                    for (uint32_t i0 = 0; i0 < g.box[0]; ++i0) {
                        int64_t at = 0;
                        bool inside = true;
                        for (int d = 0; d < g.rank; ++d) {
                            const int64_t x = (int64_t)c[d] + (d == 0 ? i0 : d == 1 ? i1 : 0);
                            inside = inside && x >= 0 && x < (int64_t)g.size[d];
                            at += d == 0 ? x * 2 : x * (int64_t)g.stride[d - 1];
                        }
                        unsigned o = (i1 * g.box[0] + i0) * 2;
                        o ^= (o >> 7 & 7) << 4;
                        if (inside) {
                            assert_true(at / 2 < (int64_t)gout.size());
                            memcpy(&gout[at / 2], &smem[i * T::box + o], 2);
                        }
                    }
            }
        }
}

/* The plan of one product of p as the launcher sees it: k, n, m. */
static tkh_plan plan_of(const product &p)
{
    const strides st = strides_of(p);
    tkh_plan q;
    memset(&q, 0, sizeof q);
    q.ndim = 3;
    q.reduced = 1;
    q.count = p.m * p.n;
    q.size[0] = p.k, q.size[1] = p.n, q.size[2] = p.m;
    q.stride[0][0] = st.a_k, q.stride[0][2] = st.a_m;
    q.stride[1][0] = st.b_k, q.stride[1][1] = st.b_n;
    q.stride[2][1] = 1, q.stride[2][2] = p.n;
    return q;
}

/* The block at (m0, n0) of p into out[m][n] (each output it writes counted in written). */
template <int BN> static void block(const product &p, int64_t m0, int64_t n0, std::vector<int64_t> &out,
    std::vector<int> &written)
{
    typedef tkh_wg_tile_of<2, BN> T;
    std::vector<int16_t> ga, gb;
    lay_out(p, ga, gb);
    const std::vector<int64_t> acc = block_of<int16_t, BN>(plan_of(p), ga, gb, p.a_kmajor, p.b_kmajor, 0, m0, n0);
    for (unsigned tid = 0; tid < 256; ++tid)
        for (unsigned v = 0; v < T::accs; ++v) {
            const int64_t m = m0 + tkh_wg_acc_row(tid, v), n = n0 + tkh_wg_acc_col(tid, v);
            if (m < p.m && n < p.n) {
                out[m * p.n + n] = acc[tid * T::accs + v];
                ++written[m * p.n + n];
            }
        }
}

/* 208 x 304: full tiles and tiles cut at m 80 and n 48, wide and narrow; k two stages and 8
 * (whole chunks, as the launcher requires). */
static void every_layout(void **state)
{
    (void)state;
    for (int layout = 0; layout < 4; ++layout) {
        check_blocks(208, 304, 2 * T::bk + 8, layout & 2, layout & 1,
            1 + 2 * (layout >> 1) + 4 * (layout & 1), T::bm, T::bn, "wgmma", block<256>);
        check_blocks(208, 304, 2 * T::bk + 8, layout & 2, layout & 1,
            1 + 2 * (layout >> 1) + 4 * (layout & 1), T::bm, 128, "wgmma, narrow tiles", block<128>);
    }
}

/* The plan of a [C][B][m][k] (or [C][B][k][m], rows padded by a_pad) @ b [C][n][k] (or [C][k][n])
 * into an output [C][B][m][o_row], in the layouts ak and bk: dims k, n, m, B (a alone), C (both). */
static tkh_plan batched_plan(int64_t m, int64_t n, int64_t k, int64_t B, int64_t C, bool ak, bool bk, int64_t a_pad,
    int64_t o_row)
{
    tkh_plan p;
    memset(&p, 0, sizeof p);
    p.ndim = 5;
    p.reduced = 1;
    p.size[0] = k, p.size[1] = n, p.size[2] = m, p.size[3] = B, p.size[4] = C;
    p.count = m * n * B * C;
    const int64_t a_row = (ak ? k : m) + a_pad;
    p.stride[0][0] = ak ? 1 : a_row, p.stride[0][2] = ak ? a_row : 1;
    p.stride[0][3] = (ak ? m : k) * a_row, p.stride[0][4] = B * p.stride[0][3];
    p.stride[1][0] = bk ? 1 : n, p.stride[1][1] = bk ? k : 1, p.stride[1][3] = 0, p.stride[1][4] = n * k;
    p.stride[2][1] = 1, p.stride[2][2] = o_row, p.stride[2][3] = m * o_row, p.stride[2][4] = B * m * o_row;
    return p;
}

/* Output (i, j) of batch 'batch' of plan q (a and b at ga and gb) by loops over q's own strides. */
template <class El> static int64_t loop_sum(const tkh_plan &q, const std::vector<El> &ga, const std::vector<El> &gb,
    int64_t batch, int64_t i, int64_t j)
{
    int64_t at[2] = { 0, 0 };
    for (int d = 3; d < q.ndim; ++d) {
        at[0] += batch % q.size[d] * q.stride[0][d];
        at[1] += batch % q.size[d] * q.stride[1][d];
        batch /= q.size[d];
    }
    int64_t sum = 0;
    for (int64_t x = 0; x < q.size[0]; ++x)
        sum += (int64_t)ga[at[0] + i * q.stride[0][2] + x * q.stride[0][0]] * gb[at[1] + j * q.stride[1][1] + x * q.stride[1][0]];
    return sum;
}

/* Batches of a plan in which a moves and b does not (x [B, S, k] @ w^T), and in which both move, each
 * in any layout; then the same plan split into 2 slices of k (tkh_plan_slices: the launcher's
 * partial plan, whose slices the copies reach by k, not by a dimension of their own). Every block
 * of every batch (and slice) against loops over the plan's own strides. */
template <int BN> static void batches_and_slices_of(void)
{
    typedef tkh_wg_tile_of<2, BN> T;
    const int64_t m = 136, n = 264, k = 128, B = 2, C = 2; /* plan dims: k, n, m, B (a alone), C (both) */
    for (int layout = 0; layout < 4; ++layout) {
        const bool ak = layout & 2, bk = layout & 1;
        const int64_t o_row = n + 8; /* the output's rows padded: what lies past n must stay as it was */
        tkh_plan p = batched_plan(m, n, k, B, C, ak, bk, 8, o_row);
        std::vector<int16_t> ga(C * p.stride[0][4]), gb(C * n * k);
        uint64_t s = 0x9E3779B97F4A7C15u * (layout + 1);
        for (int16_t &x : ga)
            x = (int16_t)((s = s * 6364136223846793005u + 1442695040888963407u) >> 61) - 3;
        for (int16_t &x : gb)
            x = (int16_t)((s = s * 6364136223846793005u + 1442695040888963407u) >> 61) - 3;
        for (int split = 1; split <= 2; ++split) {
            tkh_plan q = p;
            if (split > 1) {
                p.split = split, p.chunk = k / split;
                assert_true(tkh_plan_slices(&p, 3, 2, &q));
            }
            const int64_t batches = q.count / (m * n);
            std::vector<int16_t> gout(C * B * m * o_row, 0x7777);
            for (int64_t b = 0; b < batches; ++b)
                for (int64_t m0 = 0; m0 < m; m0 += T::bm)
                    for (int64_t n0 = 0; n0 < n; n0 += T::bn) {
                        const std::vector<int64_t> acc = block_of<int16_t, BN>(q, ga, gb, ak, bk, b, m0, n0);
                        if (split == 1)
                            store_block<BN>(q, acc, b, m0, n0, gout);
                        for (unsigned tid = 0; tid < 256; ++tid)
                            for (unsigned v = 0; v < T::accs; ++v) {
                                const int64_t i = m0 + tkh_wg_acc_row(tid, v), j = n0 + tkh_wg_acc_col(tid, v);
                                if (i >= m || j >= n)
                                    continue;
                                const int64_t want = loop_sum(q, ga, gb, b, i, j);
                                const int64_t stored = split == 1 ? gout[b * m * o_row + i * o_row + j] : want;
                                if (acc[tid * T::accs + v] != want || stored != want)
                                    fail_msg("tiles of 128 x %d, a %s, b %s, %d slices: batch %lld output (%lld, %lld) "
                                        "%lld (stored %lld), expected %lld", BN, ak ? "K-major" : "MN-major",
                                        bk ? "K-major" : "MN-major", split,
                                        (long long)b, (long long)i, (long long)j, (long long)acc[tid * T::accs + v],
                                        (long long)stored, (long long)want);
                            }
                    }
            for (int64_t b = 0; split == 1 && b < batches; ++b) /* the rows' padding: left as it was */
                for (int64_t i = 0; i < m; ++i)
                    for (int64_t j = n; j < o_row; ++j)
                        assert_int_equal(gout[b * m * o_row + i * o_row + j], 0x7777);
        }
    }
}

static void batches_and_slices(void **state)
{
    (void)state;
    batches_and_slices_of<256>();
    batches_and_slices_of<128>();
}

/* An 8-bit product as the launcher runs it: each MN-major operand copied K-major (tkh_wg_copy_of:
 * the copy's geometry and the plan over it; the copy made here by the copy kernel's rule), then
 * the kernel's blocks over K-major operands, values -128 to 127. A plan in which a moves along
 * one batch dimension and b does not, and both along another, every layout of a and b: k cut in
 * the last stage, and k split into 2 slices after the copies (whole stages each: the runtime's
 * slices are multiples of 128). Every block's outputs against loops over the original plan's
 * strides (split as the copies' plan is). */
template <int BN> static void eight_bit_copies_of(void)
{
    typedef tkh_wg_tile_of<1, BN> T8;
    const int64_t m = 136, n = 200, B = 2, C = 2; /* plan dims: k, n, m, B (a alone), C (both) */
    for (int layout = 0; layout < 8; ++layout) {
        const int64_t k = layout < 4 ? 2 * T8::bk + 32 : 4 * T8::bk;
        const int split = layout < 4 ? 1 : 2;
        const bool kmajor[2] = { (layout & 2) != 0, (layout & 1) != 0 };
        const tkh_plan p = batched_plan(m, n, k, B, C, kmajor[0], kmajor[1], 16, n);
        std::vector<int8_t> given[2] = { std::vector<int8_t>(C * p.stride[0][4]), std::vector<int8_t>(C * n * k) };
        uint64_t s = 0x9E3779B97F4A7C15u * (layout + 11);
        for (auto &g : given)
            for (int8_t &x : g)
                x = (int8_t)((s = s * 6364136223846793005u + 1442695040888963407u) >> 56);
        tkh_plan q = p;
        std::vector<int8_t> mem[2] = { given[0], given[1] };
        for (unsigned x = 0; x < 2; ++x) {
            if (kmajor[x])
                continue;
            tkh_wg_copy c;
            const int64_t bytes = tkh_wg_copy_of(&q, x, &c, &q);
            const int r = x ? 1 : 2;
            assert_int_equal(bytes, (x ? C : B * C) * p.size[r] * k); /* b is copied once for every B */
            assert_int_equal(q.stride[x][0], 1);
            assert_int_equal(q.stride[x][r], k);
            mem[x].assign(bytes, 0x55);
            for (int64_t b = 0; b < c.batches; ++b)
                for (int64_t i = 0; i < c.rows; ++i)
                    for (int64_t kk = 0; kk < c.k; ++kk)
                        mem[x][b * c.rows * c.k + i * c.k + kk] = given[x][tkh_wg_copy_from(&c, b) + kk * c.from_k + i * c.from_r];
        }
        {
            tkh_plan run = q, want = p; /* the kernel's plan over the copies; the same over the operands */
            if (split > 1) {
                tkh_plan qs = q, ps = p;
                qs.split = ps.split = split, qs.chunk = ps.chunk = k / split;
                assert_true(tkh_plan_slices(&qs, 3, 2, &run));
                assert_true(tkh_plan_slices(&ps, 3, 2, &want));
            }
            for (int64_t b = 0; b < run.count / (m * n); ++b) {
                for (int64_t m0 = 0; m0 < m; m0 += T8::bm)
                    for (int64_t n0 = 0; n0 < n; n0 += T8::bn) {
                        const std::vector<int64_t> acc = block_of<int8_t, BN>(run, mem[0], mem[1], true, true, b, m0, n0);
                        for (unsigned tid = 0; tid < 256; ++tid)
                            for (unsigned v = 0; v < T8::accs; ++v) {
                                const int64_t i = m0 + tkh_wg_acc_row(tid, v), j = n0 + tkh_wg_acc_col(tid, v);
                                if (i >= m || j >= n)
                                    continue;
                                const int64_t sum = loop_sum(want, given[0], given[1], b, i, j);
                                if (acc[tid * T8::accs + v] != sum)
                                    fail_msg("i8, tiles of 128 x %d, a %s, b %s, %d slices: batch %lld output (%lld, "
                                        "%lld) %lld, expected %lld", BN, kmajor[0] ? "K-major" : "MN-major", kmajor[1] ? "K-major" : "MN-major", split,
                                        (long long)b, (long long)i, (long long)j, (long long)acc[tid * T8::accs + v],
                                        (long long)sum);
                            }
                    }
            }
        }
    }
}

static void eight_bit_copies(void **state)
{
    (void)state;
    eight_bit_copies_of<256>();
    eight_bit_copies_of<128>();
    /* no copy of a split plan or of k not a whole number of 16 bytes */
    tkh_wg_copy c;
    tkh_plan q;
    memset(&q, 0, sizeof q);
    q.ndim = 3, q.size[0] = 40, q.size[1] = 64, q.size[2] = 64, q.stride[0][2] = 1, q.stride[0][0] = 64;
    assert_int_equal(tkh_wg_copy_of(&q, 0, &c, &q), 0);
    q.size[0] = 48;
    q.mode = TKH_PLAN_PARTIALS;
    assert_int_equal(tkh_wg_copy_of(&q, 0, &c, &q), 0);
    assert_int_equal(q.stride[0][0], 64);
}

/* Where the accelerator cannot copy an operand, the geometry says so (the launcher then takes the
 * mma.sync kernel): a negative or zero matrix stride, a negative batch stride, four batch
 * dimensions in which it moves, a row not a whole number of 16 bytes; likewise for the output
 * (stored one element at a time then). */
static void geometry_refusals(void **state)
{
    (void)state;
    product p = { 64, 64, 64, true, true, {}, {} };
    tkh_wg_geometry g;
    tkh_plan q = plan_of(p);
    assert_true(tkh_wg_geometry_of(&q, 0, true, &g));
    assert_int_equal(g.rank, 2);
    assert_int_equal(g.stride[0], 128);
    q.stride[0][2] = -64;
    assert_false(tkh_wg_geometry_of(&q, 0, true, &g));
    q.stride[0][2] = 0;
    assert_false(tkh_wg_geometry_of(&q, 0, true, &g));
    q.stride[0][2] = 68; /* 136 bytes */
    assert_false(tkh_wg_geometry_of(&q, 0, true, &g));
    q = plan_of(p);
    q.ndim = 7;
    for (int d = 3; d < 7; ++d)
        q.size[d] = 2, q.stride[0][d] = 4096 << (d - 3), q.stride[1][d] = 0;
    assert_false(tkh_wg_geometry_of(&q, 0, true, &g));
    assert_true(tkh_wg_geometry_of(&q, 1, true, &g)); /* b is the same across them: rank 2 */
    assert_int_equal(g.rank, 2);
    q.ndim = 6;
    assert_true(tkh_wg_geometry_of(&q, 0, true, &g));
    assert_int_equal(g.rank, 5);
    q.stride[0][4] = -8192;
    assert_false(tkh_wg_geometry_of(&q, 0, true, &g));
    /* the output: by the accelerator where n is contiguous, never the partials of a split */
    q = plan_of(p);
    assert_true(tkh_wg_out_geometry(&q, 2, &g));
    assert_int_equal(g.stride[0], 128);
    q.mode = TKH_PLAN_PARTIALS;
    assert_false(tkh_wg_out_geometry(&q, 2, &g));
    q = plan_of(p);
    q.stride[2][1] = 64, q.stride[2][2] = 1; /* a transposed output */
    assert_false(tkh_wg_out_geometry(&q, 2, &g));
}

/* The choice of tiles (tkh_wg_narrow) on 132 multiprocessors, against rounds worked out by hand:
 * wide tiles 128 x 256, narrow 128 x 128, a narrow round counted as 0.55 of a wide one. */
static void narrow_choice(void **state)
{
    (void)state;
    const struct {
        int64_t m, n, slices;
        int narrow;
    } cases[] = {
        { 128, 4096, 4, 1 },  /* 64 wide tiles (a round) against 128 narrow (a round) */
        { 128, 14336, 1, 1 }, /* 56 against 112: one round each */
        { 1024, 4096, 1, 0 }, /* 128 wide (a round) against 256 narrow (two: 1.1) */
        { 1152, 4096, 1, 1 }, /* 144 wide (two rounds, the second 12 tiles) against 288 (three: 1.65) */
        { 2048, 4096, 1, 0 }, /* 256 wide (two) against 512 narrow (four: 2.2) */
        { 4096, 64, 1, 1 },   /* n <= 128: as many tiles either way, the narrow ones half as wide */
    };
    for (const auto &c : cases) {
        product p = { c.m, c.n, 1024, true, true, {}, {} };
        tkh_plan q = plan_of(p);
        q.count *= c.slices; /* the slices of a split plan count as batches */
        if (tkh_wg_narrow(&q, 132) != c.narrow)
            fail_msg("m %lld, n %lld, %lld slices: narrow %d, expected %d", (long long)c.m, (long long)c.n,
                (long long)c.slices, tkh_wg_narrow(&q, 132), c.narrow);
    }
    product p = { 128, 4096, 1024, true, true, {}, {} };
    const tkh_plan q = plan_of(p);
    assert_false(tkh_wg_narrow(&q, 0)); /* no multiprocessors known: the wide tiles */
}

/* The descriptors' fields as the kernel sets them, against the layouts' documented strides. */
static void descriptor_fields(void **state)
{
    (void)state;
    const uint64_t k = tkh_wg_desc_at(2048, true, 64, 3);
    assert_int_equal(k & 0x3FFF, (2048 + 64 * 128 + 3 * 32) >> 4);
    assert_int_equal(k >> 32 & 0x3FFF, 1024 >> 4);
    const uint64_t mn = tkh_wg_desc_at(2048, false, 64, 3);
    assert_int_equal(mn & 0x3FFF, (2048 + 8192 + 6 * 1024) >> 4);
    assert_int_equal(mn >> 16 & 0x3FFF, 8192 >> 4);
    assert_int_equal(mn >> 32 & 0x3FFF, 1024 >> 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_layout),
        cmocka_unit_test(batches_and_slices),
        cmocka_unit_test(eight_bit_copies),
        cmocka_unit_test(geometry_refusals),
        cmocka_unit_test(narrow_choice),
        cmocka_unit_test(descriptor_fields),
    };
    return cmocka_run_group_tests_name("wgmma_layout", tests, NULL, NULL);
}
