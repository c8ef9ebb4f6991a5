/* The small-m kernel's maps (tokitai_hip/codegen/small_m.h) on the CPU: one block's sums
 * formed as templates/matmul_small_m.hip.tpl forms them, through the header's functions:
 * each thread's sums over its share of k (b K-major: chunks t + 256 i of kv elements for
 * every column of the tile; MN-major: the columns of chunk t % 8 at k = t / 8 + 32 i), the
 * reduce-scatter across the lanes of other k run step by step over the 32 lanes of each
 * group (what each lane sends, what it keeps), the owners' writes to their group's slots,
 * the sum over the groups and the output each slot is; against a triple loop. Integer
 * values, so every sum is exact: a value lost, counted twice or put at another output shows.
 * The loops are this file's copy of the kernel's; the maps are the header's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "tokitai_hip/codegen/small_m.h"

extern "C" {
#include <cmocka.h>
}

template <int P> struct sums {
    int64_t v[P];
};

/* One block of MT rows and W columns a thread (NC for K-major, V for MN-major), over k. */
template <int MT, int W, bool BK> static void block(int kv, int64_t k)
{
    constexpr int P = W * MT, BITS = BK ? 5 : 2, OWN = BK ? 1 : 8, HELD = P >> BITS > 1 ? P >> BITS : 1;
    const int cols = BK ? W : 8 * W;
    std::vector<int64_t> a((size_t)(MT * k)), b((size_t)(k * cols)), want((size_t)(MT * cols), 0),
        got((size_t)(MT * cols), 0);
    uint64_t s = 0x9E3779B97F4A7C15u * (uint64_t)(P + kv + k);
    for (auto *x : { &a, &b })
        for (auto &e : *x) {
            s = s * 6364136223846793005u + 1442695040888963407u;
            e = (int64_t)(s >> 59) - 16;
        }
    for (int j = 0; j < MT; ++j)
        for (int c = 0; c < cols; ++c)
            for (int64_t q = 0; q < k; ++q)
                want[(size_t)(j * cols + c)] += a[(size_t)(j * k + q)] * b[(size_t)(q * cols + c)];
    std::vector<sums<P>> acc(TKH_SMALL_THREADS, sums<P>{});
    for (unsigned t = 0; t < TKH_SMALL_THREADS; ++t)
        if (BK) {
            for (int64_t q = t; q * kv < k; q += TKH_SMALL_THREADS)
                for (int i = 0; i < kv && q * kv + i < k; ++i)
                    for (int c = 0; c < W; ++c)
                        for (int j = 0; j < MT; ++j)
                            acc[t].v[c * MT + j] += a[(size_t)(j * k + q * kv + i)] * b[(size_t)((q * kv + i) * cols + c)];
        } else {
            for (int64_t q = tkh_small_mn_slice(t); q < k; q += TKH_SMALL_THREADS / 8)
                for (int i = 0; i < W; ++i)
                    for (int j = 0; j < MT; ++j)
                        acc[t].v[i * MT + j] += a[(size_t)(j * k + q)]
                            * b[(size_t)(q * cols + tkh_small_mn_chunk(t) * W + i)];
        }
    /* the reduce-scatter, the 32 lanes of each group in lockstep */
    for (int s = 0; s < BITS; ++s) {
        const int c = tkh_small_count(P, s);
        const unsigned mask = tkh_small_mask(s);
        std::vector<sums<P>> sent(TKH_SMALL_THREADS, sums<P>{});
        for (unsigned t = 0; t < TKH_SMALL_THREADS; ++t)
            for (int j = 0; j < (c > 1 ? c / 2 : 1); ++j)
                sent[t].v[j] = c > 1 ? tkh_small_out(acc[t].v, j, c, (t & mask) != 0) : acc[t].v[j];
        for (unsigned t = 0; t < TKH_SMALL_THREADS; ++t)
            for (int j = 0; j < (c > 1 ? c / 2 : 1); ++j)
                tkh_small_in(acc[t].v, j, c, (t & mask) != 0, sent[t ^ mask].v[j]);
    }
    std::vector<int64_t> red((size_t)(TKH_SMALL_GROUPS * OWN * P), 0);
    std::vector<int> writes(red.size(), 0);
    for (unsigned t = 0; t < TKH_SMALL_THREADS; ++t) {
        const unsigned lane = t % 32, group = t / 32;
        if (!tkh_small_owner(P, BITS, lane))
            continue;
        const size_t to = (group * OWN + (BK ? 0 : tkh_small_mn_chunk(t))) * P + tkh_small_first(P, BITS, lane);
        for (int v = 0; v < HELD; ++v) {
            red[to + (size_t)v] = acc[t].v[v];
            ++writes[to + (size_t)v];
        }
    }
    for (size_t x = 0; x < writes.size(); ++x)
        assert_int_equal(writes[x], 1); /* every slot written once */
    for (unsigned t = 0; t < (unsigned)(OWN * P); ++t) {
        const unsigned chunk = t / P, v = t % P;
        int64_t sum = 0;
        for (int h = 0; h < TKH_SMALL_GROUPS; ++h)
            sum += red[(size_t)((h * OWN + chunk) * P + v)];
        got[(size_t)(v % MT * cols + chunk * W + v / MT)] += sum;
    }
    for (size_t x = 0; x < want.size(); ++x)
        if (got[x] != want[x])
            fail_msg("MT %d, W %d, %s, kv %d, k %lld: output (%d, %d) is %lld, want %lld", MT, W,
                BK ? "K-major" : "MN-major", kv, (long long)k, (int)(x / (size_t)cols), (int)(x % (size_t)cols),
                (long long)got[x], (long long)want[x]);
}

/* the kernel's shapes: W is NC (K-major) or V (MN-major) for 1- to 8-byte accumulators */
template <int MT, int W, bool BK> static void every_k(void)
{
    const int64_t ks[4] = { 0, 1, 1000, 4100 };
    for (int kv = 1; kv <= 16; kv *= (BK ? 2 : 32))
        for (int64_t k : ks)
            block<MT, W, BK>(kv, k);
}

static void k_major(void **state)
{
    (void)state;
    every_k<1, 8, true>();
    every_k<2, 8, true>();
    every_k<4, 8, true>();
    every_k<8, 8, true>();
    every_k<16, 4, true>();
    every_k<8, 4, true>();
    every_k<16, 2, true>();
}

static void mn_major(void **state)
{
    (void)state;
    every_k<1, 8, false>();
    every_k<1, 16, false>();
    every_k<1, 2, false>();
    every_k<4, 8, false>();
    every_k<8, 8, false>();
    every_k<16, 4, false>();
    every_k<16, 2, false>();
}

/* mma.sync m16n8k16 over a warp as the PTX ISA lays out its fragments ("Matrix Fragments for
 * mma.m16n8k16 with floating point type"), written here from the document, not from the
 * header: A[r][c] is element c % 2 (the low half first) of register (r / 8) + 2 (c / 8) of
 * lane 4 (r % 8) + (c % 8) / 2; B[q][j] element q % 2 of register q / 8 of lane 4 j + (q % 8)
 * / 2; D[r][j] register 2 (r / 8) + j % 2 of lane 4 (r % 8) + j / 2. Elements are 16-bit
 * integers here, so that every sum is exact. */
static void mma_16816(int64_t d[32][4], const uint32_t a[32][4], const uint32_t b[32][2])
{
    auto half = [](uint32_t w, int e) { return (int64_t)(int16_t)(uint16_t)(w >> (16 * e)); };
    for (int r = 0; r < 16; ++r)
        for (int j = 0; j < 8; ++j) {
            int64_t sum = 0;
            for (int c = 0; c < 16; ++c)
                sum += half(a[4 * (r % 8) + (c % 8) / 2][r / 8 + 2 * (c / 8)], c % 2)
                    * half(b[4 * j + (c % 8) / 2][c / 8], c % 2);
            d[4 * (r % 8) + j / 2][2 * (r / 8) + j % 2] += sum;
        }
}

/* The words of a lane's 16-byte piece at k = q (8 elements from x[q], zeros past k). */
static void piece(const std::vector<int64_t> &x, int64_t q, int64_t k, uint32_t w[4])
{
    for (int i = 0; i < 4; ++i) {
        uint32_t lo = q + 2 * i < k ? (uint16_t)x[(size_t)(q + 2 * i)] : 0,
                 hi = q + 2 * i + 1 < k ? (uint16_t)x[(size_t)(q + 2 * i + 1)] : 0;
        w[i] = lo | hi << 16;
    }
}

/* One block of the matrix-instruction small-m kernel (templates/matmul_small_m.hip.tpl): m rows
 * (of 16; the rest zeros), 8 NT columns, k a whole number of 8; each warp's chunks by
 * tkh_small_mma_chunk, each lane's pieces at tkh_small_mma_k, the operands by
 * tkh_small_mma_a and _b, the sums' places by _row and _col, then the warps added. */
template <int NT, int U> static void mma_block(int m, int64_t k)
{
    constexpr int C = 8 * NT;
    std::vector<std::vector<int64_t>> a((size_t)m, std::vector<int64_t>((size_t)k)),
        b((size_t)C, std::vector<int64_t>((size_t)k));
    uint64_t s = 0x9E3779B97F4A7C15u * (uint64_t)(m + C + k);
    for (auto *x : { &a, &b })
        for (auto &row : *x)
            for (auto &e : row) {
                s = s * 6364136223846793005u + 1442695040888963407u;
                e = (int64_t)(s >> 59) - 16;
            }
    std::vector<int64_t> red((size_t)(TKH_SMALL_GROUPS * 16 * C), 0);
    std::vector<int> writes(red.size(), 0);
    const int64_t steps = ((k + 31) / 32 + 8 * U - 1) / (8 * U);
    for (unsigned w = 0; w < TKH_SMALL_GROUPS; ++w) {
        int64_t d[NT][32][4] = {};
        for (int64_t step = 0; step < steps; ++step)
            for (int u = 0; u < U; ++u)
                for (int h = 0; h < 2; ++h) {
                    uint32_t fa[32][4], fb[NT][32][2];
                    for (unsigned l = 0; l < 32; ++l) {
                        const int64_t q = 32 * tkh_small_mma_chunk(w, step, u, U) + tkh_small_mma_k(l);
                        uint32_t lo[4] = {}, hi[4] = {}, y[4];
                        if (l / 4 < (unsigned)m)
                            piece(a[l / 4], q, k, lo);
                        if (l / 4 + 8 < (unsigned)m)
                            piece(a[l / 4 + 8], q, k, hi);
                        tkh_small_mma_a(lo, hi, h, fa[l]);
                        for (int j = 0; j < NT; ++j) {
                            piece(b[8 * j + l / 4], q, k, y);
                            tkh_small_mma_b(y, h, fb[j][l]);
                        }
                    }
                    for (int j = 0; j < NT; ++j)
                        mma_16816(d[j], fa, fb[j]);
                }
        for (int j = 0; j < NT; ++j)
            for (unsigned l = 0; l < 32; ++l)
                for (int i = 0; i < 4; ++i) {
                    const size_t at = (w * 16 + tkh_small_mma_row(l, i)) * C + 8 * j + tkh_small_mma_col(l, i);
                    red[at] = d[j][l][i];
                    ++writes[at];
                }
    }
    for (size_t x = 0; x < writes.size(); ++x)
        assert_int_equal(writes[x], 1); /* every slot written once */
    for (int r = 0; r < m; ++r)
        for (int c = 0; c < C; ++c) {
            int64_t want = 0, got = 0;
            for (int64_t q = 0; q < k; ++q)
                want += a[(size_t)r][(size_t)q] * b[(size_t)c][(size_t)q];
            for (int w = 0; w < TKH_SMALL_GROUPS; ++w)
                got += red[(size_t)((w * 16 + r) * C + c)];
            if (got != want)
                fail_msg("mma: NT %d, U %d, m %d, k %lld: output (%d, %d) is %lld, want %lld", NT, U, m, (long long)k, r,
                    c, (long long)got, (long long)want);
        }
}

static void mma_k_major(void **state)
{
    (void)state;
    const int ms[4] = { 1, 5, 9, 16 };
    const int64_t ks[5] = { 0, 8, 40, 1032, 4104 }; /* whole chunks of 8, not all of 32 or of a block's step */
    for (int m : ms)
        for (int64_t k : ks) {
            mma_block<1, 8>(m, k);
            mma_block<2, 4>(m, k);
            mma_block<4, 2>(m, k);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(k_major),
        cmocka_unit_test(mn_major),
        cmocka_unit_test(mma_k_major),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
