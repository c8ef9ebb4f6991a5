/* The matrix instructions the matrix-product kernels use (templates/matmul.hip.tpl), each
 * behind a small function so that the template holds no platform's fragment layout.
 *
 * NVIDIA (sm_80 and later), PTX ISA "Warp-level matrix instructions": mma.sync m16n8k16
 * with f32 accumulators over f16 or bf16; ldmatrix (x4: four 8 x 8 matrices of 16-bit
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
