/* The matrix instructions the matrix-product kernels use (templates/matmul*.hip.tpl), each
 * behind a small function so that the template holds no platform's fragment layout.
 *
 * AMD (gfx90a, CDNA2, waves of 64 lanes): MFMA instructions of 16 x 16 outputs, below.
 *
 * NVIDIA (sm_80 and later), PTX ISA "Warp-level matrix instructions": mma.sync m16n8k16
 * with f32 accumulators over f16 or bf16, m16n8k32 over s8 with s32 accumulators (which
 * wrap: no .satfinite), m16n8k8 (sm_90) or m8n8k4 over f64; ldmatrix (x4: four 8 x 8 matrices of 16-bit
 * elements, lanes 8i to 8i + 7 giving the row addresses of matrix i; with .trans each
 * matrix is transposed on the way); cp.async of 16 bytes (zero-filled where the source is
 * out of range). docs/matmul.md has the layouts these functions assume. Hopper's wgmma (sm_90a)
 * is in matrix_core_sm90.h, included here on NVIDIA alone. */
#ifndef TOKITAI_HIP_CODEGEN_MATRIX_CORE_H
#define TOKITAI_HIP_CODEGEN_MATRIX_CORE_H

#include <stdint.h>

#if defined(__HIPCC__) || defined(__CUDACC__)
#include "tokitai_hip/codegen/hip_platform.h"

/* A fact of the current device (whether it runs a kind of kernel, its multiprocessors):
 * ask(device), asked once per device and kept in known (0: not asked yet), so that a
 * launcher's call costs one hipGetDevice. ask returns 0 where the device could not say (not
 * kept: asked again); so does this where the current device is not known. */
static inline int tkh_device_fact(int known[64], int (*ask)(int device))
{
    int device = 0;
    if (hipGetDevice(&device) != hipSuccess || device < 0 || device >= 64)
        return 0;
    int v = __atomic_load_n(&known[device], __ATOMIC_RELAXED);
    if (v == 0 && (v = ask(device)) != 0)
        __atomic_store_n(&known[device], v, __ATOMIC_RELAXED);
    return v;
}
#endif

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

/* d += a (16 x 32, row) * b (32 x 8, col), a s8 (u8 where !a_signed), b u8, s32 accumulators
 * wrapping modulo 2^32: lane l (g = l / 4, t = l % 4) holds in a[i] A[g + 8 (i % 2)][4 t +
 * 16 (i / 2) + e] as byte e, in b[i] B[4 t + 16 i + e][g], and d[i] = D[g + 8 (i / 2)][2 t + i % 2]. */
template <bool a_signed> static __device__ __forceinline__ void tkh_mma_16832_x8u8(int d[4], const uint32_t a[4],
    const uint32_t b[2])
{
    if (a_signed)
        asm("mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%0, %1, %2, %3};\n"
            : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else
        asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
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

#if defined(TKH_PLATFORM_NVIDIA)
#include "tokitai_hip/codegen/matrix_core_sm90.h"

#if defined(__HIPCC__) || defined(__CUDACC__)
/* The multiprocessors of 'device' where it runs the mma.sync kernels (compute capability 8.0
 * or later), else -1 (also where the runtime cannot say: kept, so that every launcher of a
 * call sees the same answer). */
static inline int tkh_mma_multiprocessors(int device)
{
    int major = 0, n = 0;
    return hipDeviceGetAttribute(&major, hipDeviceAttributeComputeCapabilityMajor, device) == hipSuccess && major >= 8
            && hipDeviceGetAttribute(&n, hipDeviceAttributeMultiprocessorCount, device) == hipSuccess && n > 0
        ? n : -1;
}

/* The current device's multiprocessors where it runs the mma.sync kernels, else at most 0. */
static inline int tkh_mma_sms(void)
{
    static int known[64];
    return tkh_device_fact(known, tkh_mma_multiprocessors);
}

/* Whether the current device runs the mma.sync kernels. */
static inline bool tkh_mma_device(void)
{
    return tkh_mma_sms() > 0;
}

/* A block's shared memory on 'device' where it runs the mma.sync kernels and a kernel opts
 * in (227 KB on sm_90, 163 KB on sm_80, 99 KB on sm_86 and sm_89), else -1. */
static inline int tkh_mma_shared_optin(int device)
{
    int bytes = 0;
    return tkh_mma_multiprocessors(device) > 0
            && hipDeviceGetAttribute(&bytes, hipDeviceAttributeSharedMemPerBlockOptin, device) == hipSuccess
            && bytes > 0
        ? bytes : -1;
}

/* Whether the current device runs the mma.sync kernels and gives a block 'bytes' of shared
 * memory (the f64 kernel's stages take more than sm_86 and sm_89 have): one question a call. */
static inline bool tkh_mma_device_with(size_t bytes)
{
    static int known[64];
    const int optin = tkh_device_fact(known, tkh_mma_shared_optin);
    return optin > 0 && (size_t)optin >= bytes;
}
#endif
#endif

#if !defined(TKH_PLATFORM_NVIDIA)
/* AMD: the MFMA kernels' tiles and the lanes' places in them, as plain functions of host and
 * device code, so that tests/unit/test_mfma_layout.cc runs the kernel's index maps on the
 * CPU against the instructions' documented semantics. A block of 256 threads, 4 waves of 64
 * (2 x 2), takes 128 x 128 outputs, a wave 64 x 64 of them as 4 x 4 instructions of 16 x 16.
 * A stage holds 64 bytes along k of a's 128 rows (m) and of b's 128 rows (n), for elements
 * of S bytes (i8 1, f16 and bf16 2, f32 4, f64 8). */
#include "tokitai_hip/codegen/scalar.h" /* TKH_HD, TKH_BITCOPY */

template <int S> struct tkh_mfma_tile {
    enum {
        rows = 128, /* a block's outputs along m, and along n */
        chunk = 16 / S, /* elements of a 16-byte chunk */
        kt = 64 / S, /* k of a stage */
        kpl = S <= 2 ? 4 : 1, /* successive k a lane gives an instruction: 16 x 16 x 16 or x 4 */
        steps = kt / (4 * kpl), /* instructions along k in a stage */
        pitch = 72 / S, /* elements of a row in LDS: 64 bytes along k, then 8 of padding */
        tile = rows * pitch /* elements of an operand's stage in LDS */
    };
};

/* 16 bytes of elements, as one load moves them. */
template <typename E> struct alignas(16) tkh_mfma_chunk {
    E e[16 / sizeof(E)];
};

/* Chunk c (0 to 511: thread tid has tid and tid + 256) of an operand's stage: the row (m of
 * a, n of b) and the k of its first element within the block's tile. A K-major operand's
 * chunks run along k, 4 to a row; an MN-major one's along the rows, 128 / chunk to a k. */
template <int S> TKH_HD static inline void tkh_mfma_chunk_at(unsigned c, bool kmajor, unsigned *row, unsigned *k)
{
    typedef tkh_mfma_tile<S> T;
    const unsigned across = kmajor ? T::kt / T::chunk : T::rows / T::chunk;
    *row = kmajor ? c / across : c % across * T::chunk;
    *k = kmajor ? c % across * T::chunk : c / across;
}

/* Element (row, k) of an operand's stage in LDS: rows along k, 72 bytes apart, so that the
 * 16 rows an instruction's lanes read at once start in 16 different pairs of banks. */
template <int S> TKH_HD static inline unsigned tkh_mfma_lds(unsigned row, unsigned k)
{
    return row * tkh_mfma_tile<S>::pitch + k;
}

/* Stores a chunk of 16 bytes whose first element is (row, k) into an operand's stage: a
 * K-major one as two 8-byte halves (a row's 16-byte chunks are 8-byte aligned), an
 * MN-major one element by element, transposed. */
template <int S, typename E> TKH_HD static inline void tkh_mfma_keep(E *tile, bool kmajor, unsigned row, unsigned k,
    const E *chunk)
{
    if (kmajor) {
        unsigned char *at = (unsigned char *)__builtin_assume_aligned(tile + tkh_mfma_lds<S>(row, k), 8);
        TKH_BITCOPY(at, chunk, 8);
        TKH_BITCOPY(__builtin_assume_aligned(at + 8, 8), (const unsigned char *)chunk + 8, 8);
    } else
        for (unsigned x = 0; x < tkh_mfma_tile<S>::chunk; ++x)
            tile[tkh_mfma_lds<S>(row + x, k)] = chunk[x];
}

/* The first row (m) and column (n) in the block's tile of instruction tile (i, j) of thread
 * tid's wave: waves 0 and 1 take rows 0 to 63, 2 and 3 rows 64 to 127; even waves columns 0
 * to 63, odd ones 64 to 127. */
TKH_HD static inline unsigned tkh_mfma_tile_row(unsigned tid, unsigned i)
{
    return tid / 128 * 64 + 16 * i;
}

TKH_HD static inline unsigned tkh_mfma_tile_col(unsigned tid, unsigned j)
{
    return tid / 64 % 2 * 64 + 16 * j;
}

/* The operands of instruction 'step' of a stage (AMD's matrix instruction calculator, CDNA2):
 * lane l gives row l % 16 of the instruction's 16 (A[i][k] with i = l % 16, B[k][j] with
 * j = l % 16), and kpl successive k from kpl (l / 16), low element first: 16 x 16 x 16 (f16,
 * bf16_1k, i8) A[i][4 (l / 16) + x] as its element x; 16 x 16 x 4 (f32, f64) A[i][l / 16]. */
TKH_HD static inline unsigned tkh_mfma_frag_row(unsigned lane)
{
    return lane % 16;
}

template <int S> TKH_HD static inline unsigned tkh_mfma_frag_k(unsigned lane, unsigned step)
{
    return (4 * step + lane / 16) * tkh_mfma_tile<S>::kpl;
}

/* A lane's operand of one instruction: the kpl elements from (row, k) of an operand's stage,
 * as the F (their bits, or the value) the instruction takes. */
template <int S, typename F, typename E> TKH_HD static inline F tkh_mfma_frag(const E *tile, unsigned row, unsigned k)
{
    F f;
    TKH_BITCOPY(&f, __builtin_assume_aligned(tile + tkh_mfma_lds<S>(row, k), sizeof f), sizeof f);
    return f;
}

/* The accumulators: element e (of 4) of lane l holds D[r][l % 16], r = 4 (l / 16) + e for
 * f32 and i32 accumulators, r = 4 e + l / 16 for f64 ones (S 8: v_mfma_f64_16x16x4f64). */
template <int S> TKH_HD static inline unsigned tkh_mfma_acc_row(unsigned lane, unsigned e)
{
    return S == 8 ? 4 * e + lane / 16 : 4 * (lane / 16) + e;
}

TKH_HD static inline unsigned tkh_mfma_acc_col(unsigned lane)
{
    return lane % 16;
}

#if defined(__HIPCC__)
static inline int tkh_gfx90a(int device) /* 1 yes, -1 no */
{
    hipDeviceProp_t p;
    return hipGetDeviceProperties(&p, device) == hipSuccess && strncmp(p.gcnArchName, "gfx90a", 6) == 0
            && (p.gcnArchName[6] == '\0' || p.gcnArchName[6] == ':')
        ? 1 : -1;
}

/* Whether the current device runs the MFMA kernels: a gfx90a (any features), whose code
 * object has their bodies (other targets' code objects have them empty). */
static inline bool tkh_mfma_device(void)
{
    static int known[64];
    return tkh_device_fact(known, tkh_gfx90a) > 0;
}
#endif

#if defined(__HIP_DEVICE_COMPILE__) && defined(__gfx90a__)
#define TKH_HAS_MFMA 1

typedef float tkh_f32x4 __attribute__((ext_vector_type(4)));
typedef int tkh_i32x4 __attribute__((ext_vector_type(4)));
typedef double tkh_f64x4 __attribute__((ext_vector_type(4)));
typedef _Float16 tkh_f16x4 __attribute__((ext_vector_type(4)));
typedef short tkh_i16x4 __attribute__((ext_vector_type(4)));
typedef unsigned short tkh_u16x2 __attribute__((ext_vector_type(2)));

/* d += A B, 16 x 16 x 16, f16 operands (a lane's 4 k in the bits of a and of b, low first),
 * f32 accumulators. Subnormal inputs and outputs are flushed to zero (MI200), which the
 * kernel avoids by tkh_mfma_f16_tiny and tkh_mfma_f16_wide. */
static __device__ __forceinline__ void tkh_mfma_f16(tkh_f32x4 &d, uint64_t a, uint64_t b)
{
    tkh_f16x4 x, y;
    TKH_BITCOPY(&x, &a, sizeof x);
    TKH_BITCOPY(&y, &b, sizeof y);
    d = __builtin_amdgcn_mfma_f32_16x16x16f16(x, y, d, 0, 0, 0);
}

/* The same in bf16 (the _1k instruction of gfx90a), with the same flush. */
static __device__ __forceinline__ void tkh_mfma_bf16(tkh_f32x4 &d, uint64_t a, uint64_t b)
{
    tkh_i16x4 x, y;
    TKH_BITCOPY(&x, &a, sizeof x);
    TKH_BITCOPY(&y, &b, sizeof y);
    d = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(x, y, d, 0, 0, 0);
}

/* d += A B, 16 x 16 x 16, i8 operands (a lane's 4 k in the bytes of a and of b, low first),
 * i32 accumulators wrapping modulo 2^32 (no clamp). */
static __device__ __forceinline__ void tkh_mfma_i8(tkh_i32x4 &d, uint32_t a, uint32_t b)
{
    d = __builtin_amdgcn_mfma_i32_16x16x16i8((int)a, (int)b, d, 0, 0, 0);
}

/* d += A B, 16 x 16 x 4 in f32 (full f32 products; subnormals kept). */
static __device__ __forceinline__ void tkh_mfma_f32(tkh_f32x4 &d, float a, float b)
{
    d = __builtin_amdgcn_mfma_f32_16x16x4f32(a, b, d, 0, 0, 0);
}

/* d += A B, 16 x 16 x 4 in f64. */
static __device__ __forceinline__ void tkh_mfma_f64(tkh_f64x4 &d, double a, double b)
{
    d = __builtin_amdgcn_mfma_f64_16x16x4f64(a, b, d, 0, 0, 0);
}

/* The least of (magnitude bits - 1), wrapping (a zero gives 0xFFFF), of m and of the 4 f16 or
 * bf16 of a lane's operand a: a packed subtraction and minimum a word. */
static __device__ __forceinline__ tkh_u16x2 tkh_mfma_least(tkh_u16x2 m, uint64_t a)
{
    for (int h = 0; h < 2; ++h) {
        const uint32_t w = (uint32_t)(a >> 32 * h);
        tkh_u16x2 v;
        TKH_BITCOPY(&v, &w, sizeof v);
        m = __builtin_elementwise_min(m, (tkh_u16x2)(v & (unsigned short)0x7FFF) - (unsigned short)1);
    }
    return m;
}

/* Whether values whose least is 'least' hold one the f16 instruction would flush: a
 * subnormal (magnitude bits 1 to 0x3FF). Every f16 is a multiple of 2^-24, so without them
 * the f32 sums of products are zero or at least 2^-48, never subnormal: no flush changes
 * anything. */
static __device__ __forceinline__ bool tkh_mfma_f16_tiny(tkh_u16x2 least)
{
    return least.x < 0x3FFu || least.y < 0x3FFu;
}

/* The same for bf16: a nonzero one below 2^-56 (magnitude bits 1 to 71 * 128 - 1). Without
 * those every product is a multiple of 2^-126, and so is every f32 sum of them: zero or
 * normal, never flushed. */
static __device__ __forceinline__ bool tkh_mfma_bf16_tiny(tkh_u16x2 least)
{
    return least.x < 0x237Fu || least.y < 0x237Fu;
}

/* The sums of tkh_mfma_f16 without its flush, for a wave that met a tiny value: four f32
 * instructions, the t-th taking each lane's element t of a and of b (k 4 (l / 16) + t), widened
 * exactly. Its sums may be subnormal, so the wave keeps this path for the rest of its tile. */
static __device__ __forceinline__ void tkh_mfma_f16_wide(tkh_f32x4 &d, uint64_t a, uint64_t b)
{
    for (int t = 0; t < 4; ++t)
        d = __builtin_amdgcn_mfma_f32_16x16x4f32(tkh_f16_to_f32((uint16_t)(a >> 16 * t)),
            tkh_f16_to_f32((uint16_t)(b >> 16 * t)), d, 0, 0, 0);
}

static __device__ __forceinline__ void tkh_mfma_bf16_wide(tkh_f32x4 &d, uint64_t a, uint64_t b)
{
    for (int t = 0; t < 4; ++t)
        d = __builtin_amdgcn_mfma_f32_16x16x4f32(tkh_bf16_to_f32((uint16_t)(a >> 16 * t)),
            tkh_bf16_to_f32((uint16_t)(b >> 16 * t)), d, 0, 0, 0);
}
#endif
#endif

#endif
