/* Hopper's warpgroup matrix instructions for the 16-bit and 8-bit integer matrix products (sm_90a
 * alone), included by matrix_core.h on NVIDIA: the wgmma kernel's tile, its shared-memory layouts
 * and descriptors and its accumulators' places, as plain functions of host and device code (so
 * that tests/unit/test_wgmma_layout.cc runs them on the CPU against the instructions' documented
 * semantics), then the PTX wrappers, which only sm_90a device code has.
 *
 * PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate": wgmma.mma_async m64nNk16
 * with f32 accumulators over f16 or bf16 and m64nNk32 with s32 accumulators over s8, both
 * operands read from shared memory through 64-bit matrix descriptors (start address, leading and
 * stride byte offsets, each >> 4 in 14 bits at bits 0, 16 and 32; bits 62-63 the swizzle, 1 for
 * 128 bytes), each 16-bit operand K-major or, with the tnsp immediate, MN-major; 8-bit operands
 * K-major only. In the 128-byte swizzle a 16-byte chunk's index within its 128-byte row (address
 * bits 4-6) is XORed with the row's index within 8 rows (bits 7-9), so swizzle atoms of 8 rows x
 * 128 bytes start at multiples of 1024 bytes. */
#ifndef TOKITAI_HIP_CODEGEN_MATRIX_CORE_SM90_H
#define TOKITAI_HIP_CODEGEN_MATRIX_CORE_SM90_H

#include <stdint.h>

#include "tokitai_hip/codegen/plan.h"
#include "tokitai_hip/codegen/scalar.h" /* TKH_HD */

/* 128 x BN outputs a block of two consumer warpgroups, each 64 x BN (one m64nBN instruction per
 * 32 bytes along k: k16 of 16-bit elements, k32 of 8-bit ones), and a producer warpgroup whose
 * one thread issues the tensor memory accelerator's copies; a stage holds one 128-byte row along
 * k (64 16-bit elements, 128 8-bit ones) of a's 128 rows (m) and b's BN rows (n), a's tile then
 * b's, each a whole number of 1024-byte atoms. E: an operand element's bytes. BN: 256 (wide), or
 * 128 (narrow, for plans whose wide tiles would leave multiprocessors idle: tkh_wg_narrow). */
template <int E, int BN = 256> struct tkh_wg_tile_of {
    enum {
        bm = 128,
        bn = BN,
        bk = 128 / E, /* elements along k a stage */
        steps = 4,    /* instructions a stage, 32 bytes of k each */
        stages = BN == 256 ? 4 : 6, /* 4 x 48 KiB or 6 x 32 KiB of the 227 KiB a block may have */
        a_bytes = bm * 128,
        b_bytes = bn * 128,
        stage = a_bytes + b_bytes,
        accs = bn / 2, /* a consumer thread's 32-bit accumulators: 64 x bn over 128 threads */
        threads = 384,
        box = 64 * 128, /* an MN-major operand's box of 64 rows; an output box of 64 x 64 */
        round = 128,    /* a consumer warpgroup's outputs go out 64 rows by 128 columns at a time */
        out_bytes = 2 * 64 * round * 2, /* their shared memory: a round of each consumer warpgroup */
        smem = stages * stage + out_bytes + 1024 /* the dynamic shared memory: 1 KiB to align the stages */
    };
};
typedef tkh_wg_tile_of<2> tkh_wg_tile; /* the 16-bit products' */

/* Whether plan p takes the narrow tiles on 'sms' multiprocessors (blocks persistent, one a
 * multiprocessor): where the wide tiles' rounds over the multiprocessors would take longer than
 * the narrow ones', a narrow round counted as 0.55 of a wide one (half the outputs; a's tile is
 * read once for 128 columns instead of 256). So a plan of fewer wide tiles than half the
 * multiprocessors (m = 128 against n = 4096) runs twice the blocks, one of n <= 128 computes no
 * columns past 128, and one whose last wide round would be mostly idle spreads it. */
TKH_HD static inline int tkh_wg_narrow(const tkh_plan *p, int64_t sms)
{
    const int64_t plane = p->size[1] * p->size[2];
    if (sms <= 0 || plane <= 0)
        return 0;
    const int64_t rows = (p->size[2] + 127) / 128 * (p->count / plane);
    const int64_t wide = (p->size[1] + 255) / 256 * rows, narrow = (p->size[1] + 127) / 128 * rows;
    return 11 * ((narrow + sms - 1) / sms) < 20 * ((wide + sms - 1) / sms);
}

/* Byte offset of element (row, k) in a K-major tile: rows of 128 bytes (64 along k), the
 * 16-byte chunk k / 8 of row r stored at chunk (k / 8) ^ (r % 8). */
TKH_HD static inline unsigned tkh_wg_kmajor(unsigned row, unsigned k)
{
    return row * 128 + (((k / 8) ^ (row % 8)) * 16) + (k % 8) * 2;
}

/* Byte offset of element (row, k) in an MN-major tile: boxes of 64 rows x 64 k (8 KiB, one
 * copy of the tensor memory accelerator each), line k of a box holding its 64 rows in 128 bytes,
 * the chunk of rows 8c..8c+7 stored at chunk c ^ (k % 8) (each 8 lines a 1024-byte atom). */
TKH_HD static inline unsigned tkh_wg_mnmajor(unsigned row, unsigned k)
{
    return row / 64 * tkh_wg_tile::box + k * 128 + ((((row % 64) / 8) ^ (k % 8)) * 16) + (row % 8) * 2;
}

/* Byte offset of element (row, k) of an operand's tile in its layout. */
TKH_HD static inline unsigned tkh_wg_place(bool kmajor, unsigned row, unsigned k)
{
    return kmajor ? tkh_wg_kmajor(row, k) : tkh_wg_mnmajor(row, k);
}

/* The copies of an operand's tile of 'rows' rows (a stage's 64 k): a K-major tile is one box of
 * 64 k by 'rows' rows, an MN-major one rows / 64 boxes of 64 rows by 64 k. A copy stores its box
 * densely, its first dimension innermost (the layouts above), XORing address bits 4-6 with bits
 * 7-9 (the 128-byte swizzle). */
TKH_HD static inline unsigned tkh_wg_boxes(bool kmajor, unsigned rows)
{
    return kmajor ? 1 : rows / 64;
}

/* Box i of the tile whose first row is row0 and first k is k0: its byte offset in the tile, and
 * its first two coordinates in the operand's map (c[0], c[1]; tkh_wg_geometry_of's order). */
TKH_HD static inline unsigned tkh_wg_box(bool kmajor, unsigned i, int64_t row0, int64_t k0, int32_t c[5])
{
    c[0] = (int32_t)(kmajor ? k0 : row0 + 64 * i);
    c[1] = (int32_t)(kmajor ? row0 : k0);
    return kmajor ? 0 : i * tkh_wg_tile::box;
}

/* How the tensor memory accelerator sees an array of a plan, elements of E bytes: a tensor of
 * 'rank' dimensions, innermost first: the two of the matrix (an operand's k then its rows where it is
 * K-major, its rows then k where MN-major; the output's n then m), then the batch dimensions in
 * which the array moves; the box a copy takes. dim[d] says where plan dimension d >= 3 goes: a
 * map dimension, TKH_WG_SLICE (the slices of k of a split plan, TKH_PLAN_PARTIALS: its index times
 * size[0] is added to k, whose extent is then the whole of k) or TKH_WG_NONE (stride 0: the
 * array is the same across it). */
enum { TKH_WG_NONE = -1, TKH_WG_SLICE = -2 };
typedef struct tkh_wg_geometry {
    int rank;
    uint64_t size[5];   /* elements */
    uint64_t stride[4]; /* bytes, of dimensions 1 to rank - 1 */
    uint32_t box[5];
    signed char dim[TKH_MAX_DIMS];
} tkh_wg_geometry;

/* The geometry of array x of p (elements of E bytes) over plan dimensions d0 (its stride 1) and
 * d1, of extents e0 and e1, boxes b0 x b1; 0 where the accelerator cannot copy it: the stride of
 * d0 not 1 or of d1 not positive, a batch stride negative, more than 3 batch dimensions in which
 * it moves, a size past 2^31 - 1 (coordinates are 32-bit), a stride not a whole number of 16
 * bytes or past 2^40. */
TKH_HD static inline int tkh_wg_geometry_over(const tkh_plan *p, unsigned x, int d0, int d1, int64_t e0, int64_t e1,
    uint32_t b0, uint32_t b1, unsigned E, tkh_wg_geometry *g)
{
    if (p->ndim < 3 || p->stride[x][d0] != 1 || p->stride[x][d1] <= 0)
        return 0;
    g->rank = 2;
    g->size[0] = (uint64_t)e0;
    g->size[1] = (uint64_t)e1;
    g->stride[0] = (uint64_t)p->stride[x][d1] * E;
    g->box[0] = b0;
    g->box[1] = b1;
    for (int d = 0; d < TKH_MAX_DIMS; ++d)
        g->dim[d] = TKH_WG_NONE;
    for (int d = 3; d < p->ndim; ++d) {
        const int64_t s = p->stride[x][d];
        if (p->mode == TKH_PLAN_PARTIALS && d == p->ndim - 1)
            g->dim[d] = TKH_WG_SLICE;
        else if (s < 0 || (s > 0 && g->rank == 5))
            return 0;
        else if (s > 0) {
            g->dim[d] = (signed char)g->rank;
            g->size[g->rank] = (uint64_t)p->size[d];
            g->stride[g->rank - 1] = (uint64_t)s * E;
            g->box[g->rank++] = 1;
        }
    }
    for (int i = 0; i < g->rank; ++i)
        if (g->size[i] == 0 || g->size[i] > 0x7FFFFFFF || (i > 0 && (g->stride[i - 1] % 16 != 0 || g->stride[i - 1] >> 40)))
            return 0;
    return 1;
}

/* Operand x of p (0: a, its rows m; 1: b, its rows n), K-major (a box of 128 bytes along k by a
 * tile's rows: bn of b's) or MN-major (16-bit elements only: boxes of 64 rows by 64 k), elements
 * of E bytes. */
TKH_HD static inline int tkh_wg_geometry_of(const tkh_plan *p, unsigned x, bool kmajor, tkh_wg_geometry *g,
    unsigned E = 2, unsigned bn = tkh_wg_tile::bn)
{
    const int r = x ? 1 : 2;
    const int64_t k = p->size[0] * (p->mode == TKH_PLAN_PARTIALS ? p->size[p->ndim - 1] : 1), rows = p->size[r];
    return kmajor ? tkh_wg_geometry_over(p, x, 0, r, k, rows, 128 / E, x ? bn : tkh_wg_tile::bm, E, g)
                  : E == 2 && tkh_wg_geometry_over(p, x, r, 0, rows, k, 64, 64, E, g);
}

/* The output (array 'out' of p), n contiguous, in boxes of 64 x 64 (tkh_wg_out_place): 0 also
 * under TKH_PLAN_PARTIALS (the partials are the accumulator's type, stored one at a time). */
TKH_HD static inline int tkh_wg_out_geometry(const tkh_plan *p, unsigned out, tkh_wg_geometry *g)
{
    return p->mode != TKH_PLAN_PARTIALS && tkh_wg_geometry_over(p, out, 1, 2, p->size[1], p->size[2], 64, 64, 2, g);
}

/* Where a consumer warpgroup puts output (r, c) of a round (its 64 rows by 128 of the tile's
 * columns, 2-byte elements) for the accelerator's stores: two boxes of 64 x 64, rows of 128
 * bytes, the 16-byte chunk c / 8 of row r at chunk (c / 8) ^ (r % 8), so that the 8 rows a warp
 * writes at once fall in different banks. */
TKH_HD static inline unsigned tkh_wg_out_place(unsigned r, unsigned c)
{
    return c / 64 * tkh_wg_tile::box + tkh_wg_kmajor(r, c % 64);
}

/* The coordinates of batch 'batch' (the plan's dimensions 3 on, as the tiles count them) in g's
 * map: c[2] on; returns the k where its slice starts (0 unless the plan is split). */
TKH_HD static inline int64_t tkh_wg_coords(const tkh_plan *p, const tkh_wg_geometry *g, int64_t batch, int32_t c[5])
{
    int64_t k0 = 0;
    for (int d = 3; d < p->ndim; ++d) {
        const int64_t i = batch % p->size[d];
        batch /= p->size[d];
        if (g->dim[d] >= 0)
            c[g->dim[d]] = (int32_t)i;
        else if (g->dim[d] == TKH_WG_SLICE)
            k0 = i * p->size[0];
    }
    return k0;
}

/* An 8-bit operand copied K-major, as wgmma reads 8-bit operands (K-major only): dense,
 * [the batch dimensions in which it moves][rows][k], from the operand's strides (elements). */
typedef struct tkh_wg_copy {
    int64_t rows, k, batches;
    int64_t from_k, from_r; /* the operand's strides along k and along its rows */
    int nb;                 /* its batch dimensions in which it moves, innermost first */
    int64_t size[TKH_MAX_DIMS], from[TKH_MAX_DIMS];
} tkh_wg_copy;

/* The most bytes of copies a call makes (the context keeps a stream's scratch at its largest):
 * 256 MiB, a 16384 x 16384 operand; past it the product runs on mma.sync over the operands as
 * they lie. */
#define TKH_WG_COPY_MAX ((int64_t)256 << 20)

/* Where the copy's batch b starts in the operand (elements). */
TKH_HD static inline int64_t tkh_wg_copy_from(const tkh_wg_copy *c, int64_t b)
{
    int64_t at = 0;
    for (int i = 0; i < c->nb; ++i) {
        at += b % c->size[i] * c->from[i];
        b /= c->size[i];
    }
    return at;
}

/* The K-major copy of operand x of p (0: a, its rows m; 1: b, its rows n) into c, and q: p with
 * x's strides those of the copy (q may be p). Returns the copy's bytes, or 0 (nothing changed)
 * where p is split (copies are made before the split) or k is not a positive multiple of 16
 * (the copy's rows whole 16-byte chunks, as the tensor maps need). */
TKH_HD static inline int64_t tkh_wg_copy_of(const tkh_plan *p, unsigned x, tkh_wg_copy *c, tkh_plan *q)
{
    const int r = x ? 1 : 2;
    if (p->mode == TKH_PLAN_PARTIALS || p->size[0] < 16 || p->size[0] % 16 != 0 || p->size[r] < 1)
        return 0;
    c->rows = p->size[r], c->k = p->size[0];
    c->from_k = p->stride[x][0], c->from_r = p->stride[x][r];
    c->nb = 0;
    c->batches = 1;
    if (q != p)
        *q = *p;
    q->stride[x][0] = 1;
    q->stride[x][r] = c->k;
    for (int d = 3; d < p->ndim; ++d)
        if (p->stride[x][d] != 0) {
            c->size[c->nb] = p->size[d];
            c->from[c->nb++] = p->stride[x][d];
            q->stride[x][d] = c->batches * c->rows * c->k;
            c->batches *= p->size[d];
        }
    return c->batches * c->rows * c->k;
}

/* A matrix descriptor with the 128-byte swizzle: shared address, leading and stride byte
 * offsets (each a multiple of 16). */
TKH_HD static inline uint64_t tkh_wg_desc(unsigned address, unsigned leading, unsigned stride)
{
    return (uint64_t)((address & 0x3FFFF) >> 4) | (uint64_t)((leading & 0x3FFFF) >> 4) << 16
        | (uint64_t)((stride & 0x3FFFF) >> 4) << 32 | (uint64_t)1 << 62;
}

/* The descriptor of step j of the stage's 4 (32 bytes along k: 16 k of 16-bit elements, 32 of
 * 8-bit ones) of rows r0.. (a multiple of 64) of an operand's tile at shared address 'tile'
 * (1024-aligned). K-major: 8-row groups 1024 bytes apart (the stride offset; the leading one is
 * unused with this swizzle, 16 by convention), the start moved 32 bytes a step within the rows'
 * atoms, where the swizzle applies to it too.
 * MN-major: 64-row groups a box apart (leading), 8-k groups one atom apart (stride). */
TKH_HD static inline uint64_t tkh_wg_desc_at(unsigned tile, bool kmajor, unsigned r0, unsigned j)
{
    const unsigned at = tile + tkh_wg_place(kmajor, r0, 16 * j);
    return kmajor ? tkh_wg_desc(at, 16, 1024) : tkh_wg_desc(at, tkh_wg_tile::box, 1024);
}

/* Accumulator v (0 to 127) of thread tid: warpgroup tid / 128 takes rows 64 (tid / 128) on; in
 * it, warp w rows 16 w + lane / 4 (+ 8 for v % 4 >= 2), columns 8 (v / 4) + 2 (lane % 4) + v % 2
 * (PTX ISA: the m64nNk16 D fragment, mma.sync's m16n8 layout repeated along n): the place of
 * accumulator 0 and each accumulator's steps from it (dm, dn: constants once unrolled). */
TKH_HD static inline unsigned tkh_wg_acc_dm(unsigned v)
{
    return v / 2 % 2 * 8;
}

TKH_HD static inline unsigned tkh_wg_acc_dn(unsigned v)
{
    return v / 4 * 8 + v % 2;
}

TKH_HD static inline unsigned tkh_wg_acc_row(unsigned tid, unsigned v)
{
    return tid / 128 * 64 + tid / 32 % 4 * 16 + tid % 32 / 4 + tkh_wg_acc_dm(v);
}

TKH_HD static inline unsigned tkh_wg_acc_col(unsigned tid, unsigned v)
{
    return tid % 4 * 2 + tkh_wg_acc_dn(v);
}

/* A compile-time choice passed as a value (to a generic lambda). */
template <bool b> struct tkh_bool {
    static constexpr bool value = b;
};

/* f(tkh_bool<ak>(), tkh_bool<bk>()): the operands' layouts (each K-major or not), known at run
 * time, as compile-time choices for the code that needs them so (the transpose flags of the wgmma
 * instruction are immediates): one kernel serves the four layouts, the choice made at each stage. */
template <class F> TKH_HD static inline void tkh_wg_layouts(bool ak, bool bk, F &&f)
{
    if (ak && bk)
        f(tkh_bool<true>(), tkh_bool<true>());
    else if (ak)
        f(tkh_bool<true>(), tkh_bool<false>());
    else if (bk)
        f(tkh_bool<false>(), tkh_bool<true>());
    else
        f(tkh_bool<false>(), tkh_bool<false>());
}

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TKH_HAS_WGMMA 1

/* Orders this warpgroup's earlier register and shared-memory accesses before its next wgmma. */
static __device__ __forceinline__ void tkh_wgmma_fence(void)
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

static __device__ __forceinline__ void tkh_wgmma_commit(void)
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/* Waits until at most n of this warpgroup's committed groups are in flight. */
template <int n> static __device__ __forceinline__ void tkh_wgmma_wait(void)
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(n) : "memory");
}

/* mbarriers in shared memory (by address): a stage's 'full' barrier completes when the producer
 * has arrived and the copies' bytes have landed, its 'empty' one when every consumer warp has
 * arrived, done reading it. */
static __device__ __forceinline__ void tkh_mbar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

/* The barriers' initialization made visible to the async proxy (the copies' completions). */
static __device__ __forceinline__ void tkh_mbar_init_fence(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

static __device__ __forceinline__ void tkh_mbar_arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/* Arrives and expects 'bytes' more of the copies before the phase completes. */
static __device__ __forceinline__ void tkh_mbar_arrive_expect(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}

/* Waits for the completion of the phase of parity 'parity' (a fresh barrier counts the phase
 * before its first, parity 1, as complete). */
static __device__ __forceinline__ void tkh_mbar_wait(unsigned bar, unsigned parity)
{
    asm volatile("{\n.reg .pred done;\nWAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra WAIT;\n}\n" ::"r"(bar),
        "r"(parity)
        : "memory");
}

/* The tensor memory accelerator's copy of the box at c (rank coordinates) of 'map' (a kernel
 * parameter's address) into shared memory at dst, counted on barrier bar. */
static __device__ __forceinline__ void tkh_tma_load(unsigned dst, const void *map, unsigned bar, const int32_t c[5],
    int rank)
{
#define TKH_TMA(n, coords, ...)                                                                          \
    asm volatile("cp.async.bulk.tensor." #n "d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {" \
                 coords "}], [%2];\n" ::"r"(dst), "l"(map), "r"(bar), __VA_ARGS__ : "memory")
    switch (rank) {
    case 2:
        TKH_TMA(2, "%3, %4", "r"(c[0]), "r"(c[1]));
        break;
    case 3:
        TKH_TMA(3, "%3, %4, %5", "r"(c[0]), "r"(c[1]), "r"(c[2]));
        break;
    case 4:
        TKH_TMA(4, "%3, %4, %5, %6", "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
        break;
    default:
        TKH_TMA(5, "%3, %4, %5, %6, %7", "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]));
    }
#undef TKH_TMA
}

/* The accelerator's store of the box at c (2 coordinates, then the batch's) of 'map' from shared
 * memory at src; committed as a bulk group of this thread's. */
static __device__ __forceinline__ void tkh_tma_store(const void *map, unsigned src, const int32_t c[5], int rank)
{
#define TKH_TMA(n, coords, ...)                                                                          \
    asm volatile("cp.async.bulk.tensor." #n "d.global.shared::cta.bulk_group [%0, {" coords "}], [%1];\n" \
                 ::"l"(map), "r"(src), __VA_ARGS__ : "memory")
    switch (rank) {
    case 2:
        TKH_TMA(2, "%2, %3", "r"(c[0]), "r"(c[1]));
        break;
    case 3:
        TKH_TMA(3, "%2, %3, %4", "r"(c[0]), "r"(c[1]), "r"(c[2]));
        break;
    case 4:
        TKH_TMA(4, "%2, %3, %4, %5", "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
        break;
    default:
        TKH_TMA(5, "%2, %3, %4, %5, %6", "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]));
    }
#undef TKH_TMA
}

static __device__ __forceinline__ void tkh_bulk_commit(void)
{
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

/* Waits until this thread's stores have read their shared memory (read), or are done. */
static __device__ __forceinline__ void tkh_bulk_wait_read(void)
{
    asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}

static __device__ __forceinline__ void tkh_bulk_wait(void)
{
    asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

/* Generic-proxy writes to shared memory made visible to the async proxy (the stores' reads). */
static __device__ __forceinline__ void tkh_fence_proxy_async(void)
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* A barrier of the 128 threads of one warpgroup (named barrier 'id'; 0 is __syncthreads'). */
static __device__ __forceinline__ void tkh_warpgroup_sync(unsigned id)
{
    asm volatile("bar.sync %0, 128;\n" ::"r"(id) : "memory");
}

/* A warpgroup's registers a thread: the producer gives some up, the consumers take them. */
template <int n> static __device__ __forceinline__ void tkh_regs_fewer(void)
{
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(n));
}

template <int n> static __device__ __forceinline__ void tkh_regs_more(void)
{
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(n));
}

/* Pins the accumulators at this point: the compiler sees them written by the wgmma asm, not by
 * its completion, so without this it could read them before the wait. */
template <int N> static __device__ __forceinline__ void tkh_wgmma_pin(float (&d)[N])
{
#pragma unroll
    for (int i = 0; i < N; ++i)
        asm volatile("" : "+f"(d[i])::"memory");
}

template <int N> static __device__ __forceinline__ void tkh_wgmma_pin(int32_t (&d)[N])
{
#pragma unroll
    for (int i = 0; i < N; ++i)
        asm volatile("" : "+r"(d[i])::"memory");
}

#define TKH_WG_D8(c, i) c(d[i]), c(d[i + 1]), c(d[i + 2]), c(d[i + 3]), c(d[i + 4]), c(d[i + 5]), c(d[i + 6]), c(d[i + 7])
#define TKH_WG_D32(c, i) TKH_WG_D8(c, i), TKH_WG_D8(c, i + 8), TKH_WG_D8(c, i + 16), TKH_WG_D8(c, i + 24)
#define TKH_WG_D64(c) TKH_WG_D32(c, 0), TKH_WG_D32(c, 32)
#define TKH_WG_D128(c) TKH_WG_D32(c, 0), TKH_WG_D32(c, 32), TKH_WG_D32(c, 64), TKH_WG_D32(c, 96)
#define TKH_WG_REGS64                                                                                                \
    TKH_WG_REGS8(0, 1, 2, 3, 4, 5, 6, 7) ", " TKH_WG_REGS8(8, 9, 10, 11, 12, 13, 14, 15) ", "                        \
    TKH_WG_REGS8(16, 17, 18, 19, 20, 21, 22, 23) ", " TKH_WG_REGS8(24, 25, 26, 27, 28, 29, 30, 31) ", "              \
    TKH_WG_REGS8(32, 33, 34, 35, 36, 37, 38, 39) ", " TKH_WG_REGS8(40, 41, 42, 43, 44, 45, 46, 47) ", "              \
    TKH_WG_REGS8(48, 49, 50, 51, 52, 53, 54, 55) ", " TKH_WG_REGS8(56, 57, 58, 59, 60, 61, 62, 63)
#define TKH_WG_REGS128                                                                                               \
    TKH_WG_REGS64 ", " TKH_WG_REGS8(64, 65, 66, 67, 68, 69, 70, 71) ", " TKH_WG_REGS8(72, 73, 74, 75, 76, 77, 78, 79) \
    ", " TKH_WG_REGS8(80, 81, 82, 83, 84, 85, 86, 87) ", " TKH_WG_REGS8(88, 89, 90, 91, 92, 93, 94, 95) ", "          \
    TKH_WG_REGS8(96, 97, 98, 99, 100, 101, 102, 103) ", " TKH_WG_REGS8(104, 105, 106, 107, 108, 109, 110, 111) ", " \
    TKH_WG_REGS8(112, 113, 114, 115, 116, 117, 118, 119) ", " TKH_WG_REGS8(120, 121, 122, 123, 124, 125, 126, 127)
#define TKH_WG_F(x) "+f"(x)
#define TKH_WG_R(x) "+r"(x)
#define TKH_WG_REGS8(a, b, c, d, e, f, g, h) "%" #a ", %" #b ", %" #c ", %" #d ", %" #e ", %" #f ", %" #g ", %" #h

/* d += A B over 16-bit floats, f32 accumulators (d[v] as tkh_wg_acc_dm and _dn place it), A
 * and B from shared memory by descriptors; ta, tb: A (B) MN-major; the scale of d a predicate set
 * to 1 (accumulate). m64n256k16 (n 256: d[0] to d[127]; operands 0-127 are d, 128 and 129 the
 * descriptors) or m64n128k16 (n 128: d[0] to d[63]). */
template <int n, bool bf16, int ta, int tb> static __device__ __forceinline__ void tkh_wgmma(float *d, uint64_t a,
    uint64_t b)
{
    static_assert(n == 256 || n == 128, "m64n256k16 or m64n128k16");
#define TKH_WG_OP(shape, regs, dd, da, db, dta, dtb, dp, type)                                        \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " dp ", 0;\n"                                          \
                 "wgmma.mma_async.sync.aligned." shape ".f32." type "." type " {" regs "}, " da ", " db    \
                 ", p, 1, 1, " dta ", " dtb ";\n}\n"                                                      \
                 : dd(TKH_WG_F)                                                                         \
                 : "l"(a), "l"(b), "n"(ta), "n"(tb), "r"(1)                                             \
                 : "memory")
    if (n == 256 && bf16)
        TKH_WG_OP("m64n256k16", TKH_WG_REGS128, TKH_WG_D128, "%128", "%129", "%130", "%131", "%132", "bf16");
    else if (n == 256)
        TKH_WG_OP("m64n256k16", TKH_WG_REGS128, TKH_WG_D128, "%128", "%129", "%130", "%131", "%132", "f16");
    else if (bf16)
        TKH_WG_OP("m64n128k16", TKH_WG_REGS64, TKH_WG_D64, "%64", "%65", "%66", "%67", "%68", "bf16");
    else
        TKH_WG_OP("m64n128k16", TKH_WG_REGS64, TKH_WG_D64, "%64", "%65", "%66", "%67", "%68", "f16");
#undef TKH_WG_OP
}

/* d += A B over signed 8-bit operands, s32 accumulators (wrapping, as the i8 products' sums are
 * defined), both operands K-major (the only layout of 8-bit operands): m64n256k32 or m64n128k32,
 * by n. */
template <int n> static __device__ __forceinline__ void tkh_wgmma_s8(int32_t *d, uint64_t a, uint64_t b)
{
    static_assert(n == 256 || n == 128, "m64n256k32 or m64n128k32");
    if (n == 256)
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 {" TKH_WG_REGS128 "}, %128, %129, p;\n}\n"
                     : TKH_WG_D128(TKH_WG_R)
                     : "l"(a), "l"(b), "r"(1)
                     : "memory");
    else
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
                     "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8 {" TKH_WG_REGS64 "}, %64, %65, p;\n}\n"
                     : TKH_WG_D64(TKH_WG_R)
                     : "l"(a), "l"(b), "r"(1)
                     : "memory");
}
#undef TKH_WG_D8
#undef TKH_WG_D32
#undef TKH_WG_D64
#undef TKH_WG_D128
#undef TKH_WG_F
#undef TKH_WG_R
#undef TKH_WG_REGS8
#undef TKH_WG_REGS64
#undef TKH_WG_REGS128
#endif

#if defined(TKH_PLATFORM_NVIDIA) && defined(__CUDACC__)
#include <cuda.h>
#include <cudaTypedefs.h>

/* The tensor maps of a call's a, b and (where 'store') output, kernel parameters
 * (__grid_constant__, so that the copies read them where they lie), with the geometries they
 * were made from. */
typedef struct tkh_wg_maps {
    CUtensorMap map[3];
    tkh_wg_geometry g[3];
    int kmajor[2]; /* a's and b's layouts: K-major, else MN-major */
    int store;
} tkh_wg_maps;

/* The map of g over base, elements of the driver's type t, 128-byte swizzle; 1 on success. */
static inline int tkh_wg_encode(CUtensorMap *map, const tkh_wg_geometry *g, const void *base, CUtensorMapDataType t)
{
#if CUDART_VERSION >= 12050
    static PFN_cuTensorMapEncodeTiled_v12000 encode; /* asked once; a race asks twice for the same */
    static int asked;
    if (!__atomic_load_n(&asked, __ATOMIC_ACQUIRE)) {
        void *f = NULL;
        cudaDriverEntryPointQueryResult found;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &found)
                == cudaSuccess && found == cudaDriverEntryPointSuccess)
            encode = (PFN_cuTensorMapEncodeTiled_v12000)f;
        __atomic_store_n(&asked, 1, __ATOMIC_RELEASE);
    }
    const cuuint32_t steps[5] = { 1, 1, 1, 1, 1 };
    return encode != NULL
        && encode(map, t, (cuuint32_t)g->rank, (void *)base, (const cuuint64_t *)g->size, (const cuuint64_t *)g->stride,
               (const cuuint32_t *)g->box, steps, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
            == CUDA_SUCCESS;
#else
    (void)map, (void)g, (void)base, (void)t;
    return 0;
#endif
}

/* The maps of a (at a) and b (at b) of plan p in their layouts, elements of the driver's type t
 * (f16, bf16, or uint8 for 8-bit integers, whose bits it copies): 1, or 0 where the
 * accelerator cannot copy them (tkh_wg_geometry_of), the CUDA runtime is older than 12.5 or the
 * driver refuses (cuTensorMapEncodeTiled, reached through the runtime's entry points, so that the
 * library needs no link to the driver's own library). The output's (at out, array out_index,
 * out_size bytes an element; 0 where the kernel stores directly) where it can be stored by the
 * accelerator, 2-byte elements (else m->store is 0: the outputs go one at a time). bn: the
 * tile's columns (tkh_wg_tile_of), the rows of a K-major b's box. */
static inline int tkh_wg_maps_of(tkh_wg_maps *m, const void *a, const void *b, void *out, const tkh_plan *p,
    bool a_kmajor, bool b_kmajor, CUtensorMapDataType t, unsigned out_index, unsigned out_size, unsigned bn)
{
    const void *const base[2] = { a, b };
    const bool kmajor[2] = { a_kmajor, b_kmajor };
    m->kmajor[0] = a_kmajor, m->kmajor[1] = b_kmajor;
    const unsigned E = t == CU_TENSOR_MAP_DATA_TYPE_UINT8 ? 1 : 2;
    for (unsigned x = 0; x < 2; ++x)
        if (!tkh_wg_geometry_of(p, x, kmajor[x], &m->g[x], E, bn) || !tkh_wg_encode(&m->map[x], &m->g[x], base[x], t))
            return 0;
    m->store = out_size == 2 && (uintptr_t)out % 16 == 0 && tkh_wg_out_geometry(p, out_index, &m->g[2])
        && tkh_wg_encode(&m->map[2], &m->g[2], out, CU_TENSOR_MAP_DATA_TYPE_UINT16);
    return 1;
}
#endif

#endif
