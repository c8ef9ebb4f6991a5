/* Hopper's warpgroup matrix instructions for the 16-bit matrix products (sm_90a alone), included
 * by matrix_core.h on NVIDIA: the wgmma kernel's tile, its shared-memory layouts and descriptors
 * and its accumulators' places, as plain functions of host and device code (so that
 * tests/unit/test_wgmma_layout.cc runs them on the CPU against the instructions' documented
 * semantics), then the PTX wrappers, which only sm_90a device code has.
 *
 * PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate": wgmma.mma_async m64nNk16
 * with f32 accumulators over f16 or bf16, both operands read from shared memory through 64-bit
 * matrix descriptors (start address, leading and stride byte offsets, each >> 4 in 14 bits at
 * bits 0, 16 and 32; bits 62-63 the swizzle, 1 for 128 bytes), each operand K-major or, with
 * the tnsp immediate, MN-major. In the 128-byte swizzle a 16-byte chunk's index within its
 * 128-byte row (address bits 4-6) is XORed with the row's index within 8 rows (bits 7-9), so
 * swizzle atoms of 8 rows x 128 bytes start at multiples of 1024 bytes. */
#ifndef TOKITAI_HIP_CODEGEN_MATRIX_CORE_SM90_H
#define TOKITAI_HIP_CODEGEN_MATRIX_CORE_SM90_H

#include <stdint.h>

#include "tokitai_hip/codegen/scalar.h" /* TKH_HD */

/* 128 x 256 outputs a block of two warpgroups, each 64 x 256 (one m64n256k16 per 16 along k);
 * a stage holds 64 along k (one 128-byte row of 16-bit elements) of a's 128 rows (m) and b's 256
 * rows (n), a's tile then b's, each a whole number of 1024-byte atoms. */
struct tkh_wg_tile {
    enum {
        bm = 128,
        bn = 256,
        bk = 64,
        stages = 4, /* 4 x 48 KiB of the 227 KiB a block may have */
        a_bytes = bm * bk * 2,
        b_bytes = bn * bk * 2,
        stage = a_bytes + b_bytes,
        accs = 128 /* a thread's f32 accumulators: 64 x 256 over 128 threads */
    };
};

/* Byte offset of element (row, k) in a K-major tile: rows of 128 bytes (64 along k), the
 * 16-byte chunk k / 8 of row r stored at chunk (k / 8) ^ (r % 8). */
TKH_HD static inline unsigned tkh_wg_kmajor(unsigned row, unsigned k)
{
    return row * 128 + (((k / 8) ^ (row % 8)) * 16) + (k % 8) * 2;
}

/* Byte offset of element (row, k) in an MN-major tile of 'rows' rows (m of a, n of b): atoms of
 * 64 rows x 8 k (1024 bytes, k-th 128-byte line holding 64 successive rows, the chunk of rows
 * 8c..8c+7 stored at chunk c ^ (k % 8)), the atoms along the rows first, then along k. */
TKH_HD static inline unsigned tkh_wg_mnmajor(unsigned row, unsigned k, unsigned rows)
{
    return ((k / 8) * (rows / 64) + row / 64) * 1024 + (k % 8) * 128 + ((((row % 64) / 8) ^ (k % 8)) * 16)
        + (row % 8) * 2;
}

/* Byte offset of element (row, k) of an operand's tile of 'rows' rows, in its layout. */
TKH_HD static inline unsigned tkh_wg_place(bool kmajor, unsigned row, unsigned k, unsigned rows)
{
    return kmajor ? tkh_wg_kmajor(row, k) : tkh_wg_mnmajor(row, k, rows);
}

/* Chunk c of a stage's tile of 'rows' rows (thread tid copies chunks tid + 256 i): the row and
 * k of its first element. K-major: 8 chunks along k a row; MN-major: rows / 8 along the rows a k. */
TKH_HD static inline void tkh_wg_chunk(unsigned c, bool kmajor, unsigned rows, unsigned *row, unsigned *k)
{
    const unsigned across = kmajor ? 8 : rows / 8;
    *row = kmajor ? c / across : c % across * 8;
    *k = kmajor ? c % across * 8 : c / across;
}

/* A matrix descriptor with the 128-byte swizzle: shared address, leading and stride byte
 * offsets (each a multiple of 16). */
TKH_HD static inline uint64_t tkh_wg_desc(unsigned address, unsigned leading, unsigned stride)
{
    return (uint64_t)((address & 0x3FFFF) >> 4) | (uint64_t)((leading & 0x3FFFF) >> 4) << 16
        | (uint64_t)((stride & 0x3FFFF) >> 4) << 32 | (uint64_t)1 << 62;
}

/* The descriptor of the 16 k (step j of the stage's 4) of rows r0.. (a multiple of 64) of an
 * operand's tile at shared address 'tile' (1024-aligned). K-major: 8-row groups 1024 bytes
 * apart (the stride offset; the leading one is unused with this swizzle, 16 by convention), the
 * start moved 32 bytes a step within the rows' atoms, where the swizzle applies to it too.
 * MN-major: 64-row groups one atom apart (leading), 8-k groups rows / 64 atoms apart (stride). */
TKH_HD static inline uint64_t tkh_wg_desc_at(unsigned tile, bool kmajor, unsigned rows, unsigned r0, unsigned j)
{
    const unsigned at = tile + tkh_wg_place(kmajor, r0, 16 * j, rows);
    return kmajor ? tkh_wg_desc(at, 16, 1024) : tkh_wg_desc(at, 1024, rows / 64 * 1024);
}

/* Accumulator v (0 to 127) of thread tid: warpgroup tid / 128 takes rows 64 (tid / 128) on; in
 * it, warp w rows 16 w + lane / 4 (+ 8 for v % 4 >= 2), columns 8 (v / 4) + 2 (lane % 4) + v % 2
 * (PTX ISA: the m64nNk16 D fragment, mma.sync's m16n8 layout repeated along n). */
TKH_HD static inline unsigned tkh_wg_acc_row(unsigned tid, unsigned v)
{
    return tid / 128 * 64 + tid / 32 % 4 * 16 + tid % 32 / 4 + (v / 2 % 2) * 8;
}

TKH_HD static inline unsigned tkh_wg_acc_col(unsigned tid, unsigned v)
{
    return v / 4 * 8 + tid % 4 * 2 + v % 2;
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

/* Generic-proxy writes to shared memory (cp.async's) made visible to the async proxy (wgmma's
 * reads), before the barrier that hands a stage over. */
static __device__ __forceinline__ void tkh_fence_proxy_async(void)
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* Pins the accumulators at this point: the compiler sees them written by the wgmma asm, not by
 * its completion, so without this it could read them before the wait. */
static __device__ __forceinline__ void tkh_wgmma_pin(float d[tkh_wg_tile::accs])
{
#pragma unroll
    for (int i = 0; i < tkh_wg_tile::accs; ++i)
        asm volatile("" : "+f"(d[i])::"memory");
}

#define TKH_WG_D8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
    "+f"(d[i + 6]), "+f"(d[i + 7])
#define TKH_WG_D32(i) TKH_WG_D8(i), TKH_WG_D8(i + 8), TKH_WG_D8(i + 16), TKH_WG_D8(i + 24)
#define TKH_WG_REGS8(a, b, c, d, e, f, g, h) "%" #a ", %" #b ", %" #c ", %" #d ", %" #e ", %" #f ", %" #g ", %" #h

/* d += A B, m64n256k16, f32 accumulators (d[v] as tkh_wg_acc_row/col place it), A and B from
 * shared memory by descriptors; ta, tb: A (B) MN-major; the scale of d a predicate set to 1 (accumulate).
 * Operands 0-127 are d, 128 and 129 the descriptors. */
template <bool bf16, int ta, int tb> static __device__ __forceinline__ void tkh_wgmma_256(float d[tkh_wg_tile::accs],
    uint64_t a, uint64_t b)
{
#define TKH_WG_OP(type)                                                                                          \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %132, 0;\n"                                                    \
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32." type "." type " {"                              \
                 TKH_WG_REGS8(0, 1, 2, 3, 4, 5, 6, 7) ", " TKH_WG_REGS8(8, 9, 10, 11, 12, 13, 14, 15) ", "       \
                 TKH_WG_REGS8(16, 17, 18, 19, 20, 21, 22, 23) ", " TKH_WG_REGS8(24, 25, 26, 27, 28, 29, 30, 31) ", " \
                 TKH_WG_REGS8(32, 33, 34, 35, 36, 37, 38, 39) ", " TKH_WG_REGS8(40, 41, 42, 43, 44, 45, 46, 47) ", " \
                 TKH_WG_REGS8(48, 49, 50, 51, 52, 53, 54, 55) ", " TKH_WG_REGS8(56, 57, 58, 59, 60, 61, 62, 63) ", " \
                 TKH_WG_REGS8(64, 65, 66, 67, 68, 69, 70, 71) ", " TKH_WG_REGS8(72, 73, 74, 75, 76, 77, 78, 79) ", " \
                 TKH_WG_REGS8(80, 81, 82, 83, 84, 85, 86, 87) ", " TKH_WG_REGS8(88, 89, 90, 91, 92, 93, 94, 95) ", " \
                 TKH_WG_REGS8(96, 97, 98, 99, 100, 101, 102, 103) ", "                                          \
                 TKH_WG_REGS8(104, 105, 106, 107, 108, 109, 110, 111) ", "                                      \
                 TKH_WG_REGS8(112, 113, 114, 115, 116, 117, 118, 119) ", "                                      \
                 TKH_WG_REGS8(120, 121, 122, 123, 124, 125, 126, 127)                                           \
                 "}, %128, %129, p, 1, 1, %130, %131;\n}\n"                                                     \
                 : TKH_WG_D32(0), TKH_WG_D32(32), TKH_WG_D32(64), TKH_WG_D32(96)                                \
                 : "l"(a), "l"(b), "n"(ta), "n"(tb), "r"(1)                          \
                 : "memory")
    if (bf16)
        TKH_WG_OP("bf16");
    else
        TKH_WG_OP("f16");
#undef TKH_WG_OP
}
#undef TKH_WG_D8
#undef TKH_WG_D32
#undef TKH_WG_REGS8
#endif

#endif
