/* The matrix instructions the matrix-product kernels use (templates/matmul.hip.tpl), each
 * behind a small function so that the template holds no platform's fragment layout.
 *
 * NVIDIA (sm_80 and later), PTX ISA "Warp-level matrix instructions": mma.sync m16n8k16
 * with f32 accumulators over f16 or bf16, m16n8k32 over s8 with s32 accumulators (which
 * wrap: no .satfinite), m16n8k8 (sm_90) or m8n8k4 over f64; ldmatrix (x4: four 8 x 8 matrices of 16-bit
 * elements, lanes 8i to 8i + 7 giving the row addresses of matrix i; with .trans each
 * matrix is transposed on the way); cp.async of 16 bytes (zero-filled where the source is
 * out of range). docs/matmul.md has the layouts these functions assume. */
#ifndef TOKITAI_HIP_CODEGEN_MATRIX_CORE_H
#define TOKITAI_HIP_CODEGEN_MATRIX_CORE_H

#include <stdint.h>

#if defined(TKH_PLATFORM_NVIDIA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define TKH_HAS_MMA_SYNC 1

static __device__ __forceinline__ unsigned tkh_smem_address(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* 16 bytes from global 'src' to shared 'dst', asynchronously; zeros where !valid (src is
 * then not read). */
static __device__ __forceinline__ void tkh_copy16_async(void *dst, const void *src, bool valid)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(tkh_smem_address(dst)), "l"(src),
        "r"(valid ? 16 : 0));
}

static __device__ __forceinline__ void tkh_copy_commit(void)
{
    asm volatile("cp.async.commit_group;\n" ::);
}

/* Waits until at most n groups of this thread's copies are still in flight. */
template <int n> static __device__ __forceinline__ void tkh_copy_wait(void)
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(n));
}

/* Four 8 x 8 matrices of 16-bit elements from shared memory, this lane's row address
 * 'row' (lanes 8i..8i+7: matrix i), into r[0..3]; transposed when 'trans'. */
static __device__ __forceinline__ void tkh_load_matrices(uint32_t r[4], const void *row, bool trans)
{
    const unsigned a = tkh_smem_address(row);
    if (trans)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
}

/* The bytes of x and y (bytes 0-3 and 4-7) that 'select' names, a nibble each (PTX prmt). */
static __device__ __forceinline__ uint32_t tkh_bytes(uint32_t x, uint32_t y, uint32_t select)
{
    uint32_t r;
    asm("prmt.b32 %0, %1, %2, %3;\n" : "=r"(r) : "r"(x), "r"(y), "r"(select));
    return r;
}

/* d += a (16 x 32, row) * b (32 x 8, col), s8 operands, s32 accumulators wrapping modulo 2^32. */
static __device__ __forceinline__ void tkh_mma_16832_s8(int d[4], const uint32_t a[4], const uint32_t b[2])
{
    asm("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* d += a (16 x 8, row) * b (8 x 8, col) in f64: lane l (g = l / 4, t = l % 4) holds a[i] =
 * A[g + 8 (i % 2)][t + 4 (i / 2)], b[i] = B[t + 4 i][g] and d[i] = D[g + 8 (i / 2)][2 t + i % 2].
 * sm_90 has the shape as one instruction (PTX ISA 7.8); sm_80 as 4 of m8n8k4 (lane l: A[g][t],
 * B[t][g], D[g][2 t + i]), the same sums. */
static __device__ __forceinline__ void tkh_mma_1688_f64(double d[4], const double a[4], const double b[2])
{
#if __CUDA_ARCH__ >= 900
    asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
        : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#else
    for (int s = 0; s < 2; ++s)
        for (int h = 0; h < 2; ++h)
            asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                : "+d"(d[2 * h]), "+d"(d[2 * h + 1])
                : "d"(a[h + 2 * s]), "d"(b[s]));
#endif
}

/* d += a (16 x 16, row) * b (16 x 8, col), f32 accumulators: f16 or bf16 operands. */
template <bool bf16> static __device__ __forceinline__ void tkh_mma_16816(float d[4], const uint32_t a[4],
    const uint32_t b[2])
{
    if (bf16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                     "{%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                     "{%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
#endif

#endif
