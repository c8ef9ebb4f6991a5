/* What the emulations of the matrix-instruction kernels' maps share (test_mfma_layout.cc,
 * test_wgmma_layout.cc): a product of small integers (every sum exact), its operands laid out
 * in memory as the kernel reads them, and the check of every block's outputs against a
 * triple loop, each output written exactly once. */
#ifndef TOKITAI_HIP_TEST_TILE_EMULATION_H
#define TOKITAI_HIP_TEST_TILE_EMULATION_H

#include <stdint.h>

#include <vector>

struct product {
    int64_t m, n, k;
    bool a_kmajor, b_kmajor;
    std::vector<int64_t> a, b; /* a[m][k], b[k][n] */
};

/* Where the operands' elements lie in memory: a[i][q] at i a_m + q a_k, b[q][j] at
 * j b_n + q b_k, each K-major (k contiguous) or MN-major as p says. */
struct strides {
    int64_t a_m, a_k, b_n, b_k;
};

static strides strides_of(const product &p)
{
    return { p.a_kmajor ? p.k : 1, p.a_kmajor ? 1 : p.m, p.b_kmajor ? p.k : 1, p.b_kmajor ? 1 : p.n };
}

/* a and b in memory as E, laid out as strides_of(p) says. */
template <class E> static void lay_out(const product &p, std::vector<E> &ga, std::vector<E> &gb)
{
    const strides s = strides_of(p);
    ga.assign(p.m * p.k, 0);
    gb.assign(p.k * p.n, 0);
    for (int64_t i = 0; i < p.m; ++i)
        for (int64_t q = 0; q < p.k; ++q)
            ga[i * s.a_m + q * s.a_k] = (E)p.a[i * p.k + q];
    for (int64_t q = 0; q < p.k; ++q)
        for (int64_t j = 0; j < p.n; ++j)
            gb[j * s.b_n + q * s.b_k] = (E)p.b[q * p.n + j];
}

/* A product of m x n x k in the given layouts with values -3 to 4 from 'salt'; every block of
 * bm x bn outputs by block(p, m0, n0, out, written), then each output against the triple
 * loop ('what' names the case in a failure). */
template <class Block> static void check_blocks(int64_t m, int64_t n, int64_t k, bool a_kmajor, bool b_kmajor,
    uint64_t salt, int64_t bm, int64_t bn, const char *what, Block block)
{
    product p = { m, n, k, a_kmajor, b_kmajor, std::vector<int64_t>(m * k), std::vector<int64_t>(k * n) };
    uint64_t state = 0x9E3779B97F4A7C15u * salt;
    for (int64_t &x : p.a)
        x = (int64_t)((state = state * 6364136223846793005u + 1442695040888963407u) >> 61) - 3;
    for (int64_t &x : p.b)
        x = (int64_t)((state = state * 6364136223846793005u + 1442695040888963407u) >> 61) - 3;
    std::vector<int64_t> out(m * n, 0);
    std::vector<int> written(m * n, 0);
    for (int64_t m0 = 0; m0 < m; m0 += bm)
        for (int64_t n0 = 0; n0 < n; n0 += bn)
            block(p, m0, n0, out, written);
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            int64_t want = 0;
            for (int64_t q = 0; q < k; ++q)
                want += p.a[i * k + q] * p.b[q * n + j];
            if (written[i * n + j] != 1 || out[i * n + j] != want)
                fail_msg("%s, a %s, b %s: output (%lld, %lld) written %d times, %lld, expected %lld", what,
                    a_kmajor ? "K-major" : "MN-major", b_kmajor ? "K-major" : "MN-major", (long long)i, (long long)j,
                    written[i * n + j], (long long)out[i * n + j], (long long)want);
        }
}

#endif
