/* The wgmma kernel's maps (tokitai_hip/codegen/matrix_core_sm90.h) on the CPU: one block's tile of
 * a 16-bit product computed as the kernel computes it, through exactly its functions (chunks of a
 * stage and their places in shared memory, the descriptors of each instruction, the accumulators'
 * outputs), with wgmma.mma_async m64n256k16 emulated from its documented semantics, written here
 * apart from the kernel's functions: the descriptor's fields (PTX ISA, matrix descriptor format),
 * the canonical 128-byte-swizzled layouts it describes (K-major: 8 rows of 128 bytes, 8-row groups
 * at the stride offset; MN-major: 64 rows of a k in 128 bytes, 64-row groups at the leading
 * offset, 8-k groups at the stride offset; the swizzle XORs address bits 4-6 with bits 7-9), and
 * the D fragment (thread t of the warpgroup, register v: row 16 (t / 32) + (t % 32) / 4 + 8 (v / 2
 * % 2), column 8 (v / 4) + 2 (t % 4) + v % 2). Every layout of a and b, full tiles and tiles cut at
 * m, n and k, against a triple loop. Integer values, so every sum is exact. This checks the maps
 * against the documented semantics, not against the hardware. */
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

static int16_t element(const std::vector<unsigned char> &smem, unsigned address)
{
    int16_t v;
    assert_true(address >= smem_base && address + 2 <= smem_base + smem.size());
    memcpy(&v, &smem[address - smem_base], 2);
    return v;
}

/* Where an instruction reads element (x, kk) of its operand (x along m or n, kk < 16), from the
 * descriptor alone: its canonical layout for a K-major or (tnsp) MN-major operand, swizzled. */
static unsigned operand_address(uint64_t desc, bool tnsp, unsigned x, unsigned kk)
{
    const unsigned start = (unsigned)(desc & 0x3FFF) << 4, leading = (unsigned)(desc >> 16 & 0x3FFF) << 4;
    const unsigned stride = (unsigned)(desc >> 32 & 0x3FFF) << 4;
    assert_int_equal(desc >> 62, 1); /* the 128-byte swizzle */
    assert_int_equal(desc >> 49 & 7, 0); /* no base offset: atoms 1024-aligned */
    const unsigned at = tnsp ? start + (x % 64) * 2 + (x / 64) * leading + (kk % 8) * 128 + (kk / 8) * stride
                             : start + (x % 8) * 128 + (x / 8) * stride + kk * 2;
    return at ^ ((at >> 7 & 7) << 4);
}

/* The block at (m0, n0) of p into out[m][n] (each output it writes counted in written). */
static void block(const product &p, int64_t m0, int64_t n0, std::vector<int64_t> &out, std::vector<int> &written)
{
    std::vector<int16_t> ga, gb;
    lay_out(p, ga, gb);
    const strides st = strides_of(p);
    const int64_t a_m = st.a_m, a_k = st.a_k, b_n = st.b_n, b_k = st.b_k;
    std::vector<int64_t> acc(256 * T::accs, 0); /* [tid][v] */
    std::vector<unsigned char> smem(T::stage);
    for (int64_t k0 = 0; k0 < p.k; k0 += T::bk) {
        std::fill(smem.begin(), smem.end(), (unsigned char)0x77); /* poison: a read of what no chunk wrote shows */
        std::vector<int> slots(T::stage / 16, 0);
        /* each thread's chunks, as fetch copies them: 16 bytes from the first element on */
        for (unsigned tid = 0; tid < 256; ++tid)
            for (int op = 0; op < 2; ++op) {
                const bool kmajor = op ? p.b_kmajor : p.a_kmajor;
                const unsigned rows = op ? T::bn : T::bm, tile = op ? T::a_bytes : 0;
                const int64_t lim = op ? p.n : p.m, x0 = op ? n0 : m0, s_x = op ? (kmajor ? b_n : 1) : (kmajor ? a_m : 1);
                const int64_t s_k = op ? (kmajor ? 1 : b_k) : (kmajor ? 1 : a_k);
                const std::vector<int16_t> &g = op ? gb : ga;
                for (unsigned i = 0; i < rows * T::bk / 8 / 256; ++i) {
                    unsigned r, q;
                    tkh_wg_chunk(tid + 256 * i, kmajor, rows, &r, &q);
                    const unsigned place = tkh_wg_place(kmajor, r, q, rows);
                    assert_true(place % 16 == 0 && place + 16 <= (op ? T::b_bytes : T::a_bytes));
                    ++slots[(tile + place) / 16];
                    const bool ok = x0 + r < lim && k0 + q < p.k;
                    for (unsigned e = 0; e < 8; ++e) {
                        const int16_t v = ok ? g[(x0 + r) * s_x + (k0 + q) * s_k + e] : 0;
                        memcpy(&smem[tile + place + 2 * e], &v, 2);
                    }
                }
            }
        for (int s : slots)
            assert_int_equal(s, 1); /* the chunks fill the stage, each 16 bytes once */
        /* each warpgroup's 4 instructions, emulated from the descriptors the kernel makes */
        for (unsigned wg = 0; wg < 2; ++wg)
            for (unsigned j = 0; j < T::bk / 16; ++j) {
                const uint64_t da = tkh_wg_desc_at(smem_base, p.a_kmajor, T::bm, 64 * wg, j);
                const uint64_t db = tkh_wg_desc_at(smem_base + T::a_bytes, p.b_kmajor, T::bn, 0, j);
                std::vector<int64_t> d(64 * 256, 0);
                for (unsigned x = 0; x < 64; ++x)
                    for (unsigned kk = 0; kk < 16; ++kk) {
                        const int64_t av = element(smem, operand_address(da, !p.a_kmajor, x, kk));
                        if (av != 0)
                            for (unsigned y = 0; y < 256; ++y)
                                d[x * 256 + y] += av * element(smem, operand_address(db, !p.b_kmajor, y, kk));
                    }
                for (unsigned t = 0; t < 128; ++t)
                    for (unsigned v = 0; v < T::accs; ++v) {
                        const unsigned row = 16 * (t / 32) + t % 32 / 4 + 8 * (v / 2 % 2), col = 8 * (v / 4) + 2 * (t % 4) + v % 2;
                        acc[(128 * wg + t) * T::accs + v] += d[row * 256 + col];
                    }
            }
    }
    for (unsigned tid = 0; tid < 256; ++tid)
        for (unsigned v = 0; v < T::accs; ++v) {
            const int64_t m = m0 + tkh_wg_acc_row(tid, v), n = n0 + tkh_wg_acc_col(tid, v);
            if (m < p.m && n < p.n) {
                out[m * p.n + n] = acc[tid * T::accs + v];
                ++written[m * p.n + n];
            }
        }
}

/* 208 x 304: a full tile and tiles cut at m 80 and n 48; k two stages and 8 (whole chunks, as the
 * launcher requires). */
static void every_layout(void **state)
{
    (void)state;
    for (int layout = 0; layout < 4; ++layout)
        check_blocks(208, 304, 2 * T::bk + 8, layout & 2, layout & 1,
            1 + 2 * (layout >> 1) + 4 * (layout & 1), T::bm, T::bn, "wgmma", block);
}

/* The descriptors' fields as the kernel sets them, against the layouts' documented strides. */
static void descriptor_fields(void **state)
{
    (void)state;
    const uint64_t k = tkh_wg_desc_at(2048, true, T::bn, 64, 3);
    assert_int_equal(k & 0x3FFF, (2048 + 64 * 128 + 3 * 32) >> 4);
    assert_int_equal(k >> 32 & 0x3FFF, 1024 >> 4);
    const uint64_t mn = tkh_wg_desc_at(2048, false, T::bn, 64, 3);
    assert_int_equal(mn & 0x3FFF, (2048 + (6 * 4 + 1) * 1024) >> 4);
    assert_int_equal(mn >> 16 & 0x3FFF, 1024 >> 4);
    assert_int_equal(mn >> 32 & 0x3FFF, 4 * 1024 >> 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_layout),
        cmocka_unit_test(descriptor_fields),
    };
    return cmocka_run_group_tests_name("wgmma_layout", tests, NULL, NULL);
}
