/* The MFMA kernels' index maps (tokitai_hip/codegen/matrix_core.h) on the CPU: one block's
 * tile of a product computed as the kernel computes it, through exactly those functions
 * (chunks of a stage, their places in LDS, the lanes' operands, the accumulators' outputs),
 * with each instruction emulated from its documented semantics (AMD's matrix instruction
 * calculator, CDNA2: lane 16 (k / kpl) + i holds A[i][k] as its element k % kpl, B likewise;
 * D[i][j] is element i % 4 of lane 16 (i / 4) + j, or for f64 element i / 4 of lane
 * 16 (i % 4) + j), against a triple loop. Every layout, a full tile and one cut at its edges,
 * k not a whole number of stages. This checks the maps against the documented semantics,
 * not against the hardware. Integer values, so every sum is exact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* C++ headers before cmocka.h, whose fail() macro they would meet; cmocka.h declares C
 * functions without extern "C" */
#include <vector>

#include "tokitai_hip/codegen/matrix_core.h"

extern "C" {
#include <cmocka.h>
}

#include "tile_emulation.h"

/* Integer carriers of the element sizes: the maps depend on the size alone. */
template <int S> struct carrier;
template <> struct carrier<1> {
    typedef int8_t e;
    typedef uint32_t f; /* 4 k a lane */
};
template <> struct carrier<2> {
    typedef int16_t e;
    typedef uint64_t f;
};
template <> struct carrier<4> {
    typedef int32_t e;
    typedef int32_t f;
};
template <> struct carrier<8> {
    typedef int64_t e;
    typedef int64_t f;
};

/* Element x of a lane's operand f, low first. */
template <int S> static int64_t part(typename carrier<S>::f f, unsigned x)
{
    typename carrier<S>::e v;
    memcpy(&v, (const unsigned char *)&f + x * S, S);
    return v;
}


/* The block at (m0, n0) of p into out[m][n] (each output it writes counted in written):
 * 'wide' emulates the 16-bit products as tkh_mfma_f16_wide makes them, by four 16 x 16 x 4
 * instructions over each lane's element t. */
template <int S> static void block(const product &p, int64_t m0, int64_t n0, bool wide, std::vector<int64_t> &out,
    std::vector<int> &written)
{
    typedef tkh_mfma_tile<S> T;
    typedef typename carrier<S>::e E;
    typedef typename carrier<S>::f F;
    std::vector<E> ga, gb;
    lay_out(p, ga, gb);
    const strides st = strides_of(p);
    const int64_t a_m = st.a_m, a_k = st.a_k, b_n = st.b_n, b_k = st.b_k;
    std::vector<int64_t> acc(256 * 4 * 4 * 4, 0); /* [tid][i][j][e] */
    std::vector<E> la(T::tile), lb(T::tile);
    std::vector<F> fa(256 * T::steps * 4), fb(256 * T::steps * 4); /* [tid][s][i] */
    for (int64_t k0 = 0; k0 < p.k; k0 += T::kt) {
        std::fill(la.begin(), la.end(), (E)77); /* poison: a read of what no chunk wrote shows */
        std::fill(lb.begin(), lb.end(), (E)77);
        for (unsigned tid = 0; tid < 256; ++tid)
            for (unsigned q = 0; q < 2; ++q) {
                unsigned row, kq;
                E c[T::chunk];
                tkh_mfma_chunk_at<S>(tid + 256 * q, p.a_kmajor, &row, &kq);
                const bool a_in = m0 + row < p.m && k0 + kq < p.k;
                for (unsigned x = 0; x < T::chunk; ++x)
                    c[x] = a_in ? ga[(m0 + row) * a_m + (k0 + kq) * a_k + x] : 0;
                tkh_mfma_keep<S>(la.data(), p.a_kmajor, row, kq, c);
                tkh_mfma_chunk_at<S>(tid + 256 * q, p.b_kmajor, &row, &kq);
                const bool b_in = n0 + row < p.n && k0 + kq < p.k;
                for (unsigned x = 0; x < T::chunk; ++x)
                    c[x] = b_in ? gb[(n0 + row) * b_n + (k0 + kq) * b_k + x] : 0;
                tkh_mfma_keep<S>(lb.data(), p.b_kmajor, row, kq, c);
            }
        for (unsigned tid = 0; tid < 256; ++tid)
            for (unsigned s = 0; s < T::steps; ++s)
                for (unsigned i = 0; i < 4; ++i) {
                    const unsigned lane = tid % 64, at = (tid * T::steps + s) * 4 + i;
                    fa[at] = tkh_mfma_frag<S, F>(la.data(), tkh_mfma_tile_row(tid, i) + tkh_mfma_frag_row(lane),
                        tkh_mfma_frag_k<S>(lane, s));
                    fb[at] = tkh_mfma_frag<S, F>(lb.data(), tkh_mfma_tile_col(tid, i) + tkh_mfma_frag_row(lane),
                        tkh_mfma_frag_k<S>(lane, s));
                }
        /* each wave's instructions, as documented: lane 16 (k / kpl) + r gives A[r][k] (its
         * element k % kpl), and D[r][c] goes to the lane and element the calculator names */
        const unsigned kpl = wide ? 1 : T::kpl, parts = wide ? 4 : 1;
        for (unsigned w = 0; w < 4; ++w)
            for (unsigned s = 0; s < T::steps; ++s)
                for (unsigned i = 0; i < 4; ++i)
                    for (unsigned j = 0; j < 4; ++j)
                        for (unsigned t = 0; t < parts; ++t)
                            for (unsigned r = 0; r < 16; ++r)
                                for (unsigned c = 0; c < 16; ++c) {
                                    int64_t d = 0;
                                    for (unsigned kk = 0; kk < 4 * kpl; ++kk) {
                                        const unsigned ra = 64 * w + 16 * (kk / kpl) + r, rb = 64 * w + 16 * (kk / kpl) + c;
                                        const unsigned x = wide ? t : kk % kpl;
                                        d += part<S>(fa[(ra * T::steps + s) * 4 + i], x)
                                            * part<S>(fb[(rb * T::steps + s) * 4 + j], x);
                                    }
                                    const unsigned lane = S == 8 ? 16 * (r % 4) + c : 16 * (r / 4) + c;
                                    const unsigned e = S == 8 ? r / 4 : r % 4;
                                    acc[(((64 * w + lane) * 4 + i) * 4 + j) * 4 + e] += d;
                                }
    }
    for (unsigned tid = 0; tid < 256; ++tid)
        for (unsigned i = 0; i < 4; ++i)
            for (unsigned j = 0; j < 4; ++j)
                for (unsigned e = 0; e < 4; ++e) {
                    const unsigned lane = tid % 64;
                    const int64_t m = m0 + tkh_mfma_tile_row(tid, i) + tkh_mfma_acc_row<S>(lane, e);
                    const int64_t n = n0 + tkh_mfma_tile_col(tid, j) + tkh_mfma_acc_col(lane);
                    if (m < p.m && n < p.n) {
                        out[m * p.n + n] = acc[((tid * 4 + i) * 4 + j) * 4 + e];
                        ++written[m * p.n + n];
                    }
                }
}

/* 208 x 176: a full tile and tiles cut at m 80 and n 48; k two stages and a quarter (whole
 * chunks of every size, as the launcher requires). */
template <int S> static void every_layout(bool wide)
{
    for (int layout = 0; layout < 4; ++layout)
    {
        char what[32];
        snprintf(what, sizeof what, "S %d%s", S, wide ? ", wide" : "");
        check_blocks(208, 176, 2 * tkh_mfma_tile<S>::kt + tkh_mfma_tile<S>::chunk, layout & 2, layout & 1,
            S + 16 * (layout >> 1) + 32 * (layout & 1) + 64 * wide, tkh_mfma_tile<S>::rows, tkh_mfma_tile<S>::rows,
            what, [wide](const product &p, int64_t m0, int64_t n0, std::vector<int64_t> &out, std::vector<int> &written) {
                block<S>(p, m0, n0, wide, out, written);
            });
    }
}

static void i8_tiles(void **state)
{
    (void)state;
    every_layout<1>(false);
}

static void f16_and_bf16_tiles(void **state)
{
    (void)state;
    every_layout<2>(false);
}

static void f16_and_bf16_tiles_widened(void **state)
{
    (void)state;
    every_layout<2>(true);
}

static void f32_tiles(void **state)
{
    (void)state;
    every_layout<4>(false);
}

static void f64_tiles(void **state)
{
    (void)state;
    every_layout<8>(false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(i8_tiles),
        cmocka_unit_test(f16_and_bf16_tiles),
        cmocka_unit_test(f16_and_bf16_tiles_widened),
        cmocka_unit_test(f32_tiles),
        cmocka_unit_test(f64_tiles),
    };
    return cmocka_run_group_tests_name("mfma_layout", tests, NULL, NULL);
}
