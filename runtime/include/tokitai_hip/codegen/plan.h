/* The iteration plan of a tensor call: what the strided and axis kernels and the CPU
 * oracle walk. The host works it out from the tensors' shapes and strides (tensor.h);
 * kernels get it by value. Plain C, so that HIP and CUDA kernels include it too. */
#ifndef TOKITAI_HIP_PLAN_H
#define TOKITAI_HIP_PLAN_H

#include <stdint.h>
#include <string.h>

/* The most arrays and scalars of each kind a kernel takes (the generator enforces them). */
#define TKH_MAX_INPUTS 8
#define TKH_MAX_OUTPUTS 4
#define TKH_MAX_SCALARS 8
/* The most dimensions a tensor of a call may have. */
#define TKH_MAX_DIMS 16
/* Arrays of a call: inputs first, then outputs. */
#define TKH_MAX_ARRAYS (TKH_MAX_INPUTS + TKH_MAX_OUTPUTS)

/* How an axis kernel lays out its threads: one block per output, its threads along the
 * reduced elements (the reduced dimensions include the input's contiguous one), or one
 * thread column per output, consecutive outputs on consecutive threads, the block's rows
 * splitting the reduced elements. */
enum { TKH_PLAN_ROWS = 0, TKH_PLAN_COLUMNS = 1 };
/* A matrix product's kernels over a plan of this mode store each output's sum as it is, in
 * the accumulator's type, into 'out' (their launcher's slices of k, summed by a second kernel
 * before the epilogue). */
enum { TKH_PLAN_PARTIALS = 2 };
#define TKH_PLAN_COLUMN_WIDTH 32 /* outputs per block of the columns layout */
#define TKH_PLAN_COLUMN_ROWS 32  /* and rows of threads splitting their elements */
#define TKH_PLAN_MAX_SPLIT 32    /* blocks along one output's elements at most */

typedef struct tkh_plan {
    int ndim;                 /* dimensions after merging, [0] the innermost */
    int wide;                 /* 1: some index or offset needs 64 bits; 0: all fit 31 bits */
    int reduced;              /* reductions: dimensions [0, reduced) are reduced, the rest kept */
    int mode;                 /* reductions: TKH_PLAN_ROWS or TKH_PLAN_COLUMNS; matrix products:
                                 TKH_PLAN_ROWS, or TKH_PLAN_PARTIALS within their launcher */
    int64_t count;            /* elementwise: elements; reductions: outputs (kept elements) */
    int64_t reduce_count;     /* reductions: elements folded into each output */
    int split;                /* reductions: blocks along each output's elements (the grid's y);
                                 above 1 each writes a partial and a finish kernel folds them;
                                 matrix products: slices of k, likewise */
    int64_t chunk;            /* reductions: elements of each of those blocks (a multiple of 16,
                                 the last block's may be fewer); matrix products: k of a slice
                                 (all alike) */
    int64_t size[TKH_MAX_DIMS];
    int64_t stride[TKH_MAX_ARRAYS][TKH_MAX_DIMS]; /* in elements, per array and dimension */
    /* Division by size[d] without a divide, where !wide: q = (umulhi(i, magic) + i) >> shift
     * for i < 2^31 (Granlund and Montgomery's method, as in PyTorch's IntDivider). */
    uint32_t magic[TKH_MAX_DIMS];
    uint32_t shift[TKH_MAX_DIMS];
} tkh_plan;

/* 32-bit division constants for d >= 1, valid for i < 2^31 (tkh_plan's magic, shift). */
static inline void tkh_plan_magic(uint32_t d, uint32_t *magic, uint32_t *shift)
{
    uint32_t s = 0;
    while (s < 32 && ((uint64_t)1 << s) < d)
        ++s;
    *shift = s;
    *magic = (uint32_t)((((uint64_t)1 << 32) * (((uint64_t)1 << s) - d)) / d + 1);
}

/* An elementwise plan kernel's runs: each thread takes 'width' consecutive elements along
 * dimension 0 at a time (one vector per array where 'vector'). */
typedef struct tkh_plan_runs {
    int64_t per_row;          /* runs along dimension 0: ceil(size[0] / width) */
    int64_t total;            /* runs of the plan: per_row times its rows */
    uint32_t magic, shift;    /* dividing by per_row (32-bit plans) */
    int vector;               /* every array steps 0 or 1 along dimension 0, and each that steps
                                 1 starts every row on a whole vector */
} tkh_plan_runs;

/* The runs of 'plan' for arrays of element sizes size[a] at base[a], 'width' elements. */
static inline tkh_plan_runs tkh_plan_runs_of(const tkh_plan *p, unsigned arrays, const void *const *base,
    const unsigned *size, unsigned width)
{
    tkh_plan_runs r;
    r.per_row = (p->size[0] + width - 1) / width;
    r.total = p->size[0] ? r.per_row * (p->count / p->size[0]) : 0;
    tkh_plan_magic(p->wide || r.per_row == 0 ? 1 : (uint32_t)r.per_row, &r.magic, &r.shift);
    r.vector = 1;
    for (unsigned a = 0; a < arrays && r.vector; ++a) {
        const int64_t s0 = p->stride[a][0];
        r.vector = s0 == 0 || (s0 == 1 && (uintptr_t)base[a] % (width * size[a]) == 0);
        for (int d = 1; d < p->ndim && r.vector && s0 == 1; ++d)
            r.vector = p->stride[a][d] % (int64_t)width == 0;
    }
    return r;
}

/* A columns plan's outputs go 'width' at a time, one vector of the input per row: one
 * reduced dimension, the first kept one compact in the input and the outputs and of whole
 * vectors, every other step of the input a whole vector, the input aligned to 16 bytes. */
static inline int tkh_plan_column_vector(const tkh_plan *p, unsigned arrays, const void *input, unsigned width)
{
    const int r = p->reduced;
    int vector = p->mode == TKH_PLAN_COLUMNS && r == 1 && p->ndim > r && p->size[r] % width == 0
        && (uintptr_t)input % 16 == 0 && p->stride[0][r] == 1 && p->stride[0][0] % width == 0;
    for (unsigned a = 1; a < arrays && vector; ++a)
        vector = p->stride[a][r] == 1;
    for (int d = r + 1; d < p->ndim && vector; ++d)
        vector = p->stride[0][d] % width == 0;
    return vector;
}

/* Normalizations (docs/normalizations.md) run over a plan with one reduced dimension, the
 * axis. The rows layout gives each row a group of threads (a power of two): the least for
 * which each thread keeps at most 4 of the row's 16-byte vectors in registers, up to 256
 * threads; past that 8 vectors, up to TKH_NORM_MOST_GROUP threads (a row of 32768 f32 or
 * 65536 16-bit elements); a longer row takes the most threads, which keep what they can
 * of it in shared memory and read the rest again in each stage. A thread holds more bytes
 * where the row allows (a short row's threads keep many loads in flight), but never more
 * than 64 registers' worth with its arithmetic. Groups of up to 32 threads share blocks of
 * TKH_NORM_ROWS_BLOCK, a row a group: small blocks, whose slots free as soon as their few
 * rows are done (f32 softmax over rows of 128 on the H200: 517 us with blocks of 256, 509
 * with 64, the copy 504); a larger group is its block. Measured on the H200
 * (docs/normalizations.md): 0.88 to 1.05 x the device copy for rows of 128 to 16384
 * elements, 0.63 to 0.77 for rows of 65536. */
#define TKH_NORM_ROWS_BLOCK 64
#define TKH_NORM_VECTORS 4        /* vectors a thread keeps first, */
#define TKH_NORM_VECTORS_GROUP 256 /* up to this many threads, */
#define TKH_NORM_MOST_VECTORS 8   /* then these, */
#define TKH_NORM_MOST_GROUP 1024  /* up to this many */
#define TKH_NORM_BATCH 2 /* vectors a thread loads at once where it reads a row again */

typedef struct tkh_norm_shape {
    unsigned group;   /* threads a row */
    unsigned vectors; /* 16-byte vectors a thread keeps: 4 or 8; 0 past the registers */
    unsigned block;   /* threads a block */
} tkh_norm_shape;

/* The rows layout's shape for rows of n elements of 'size' bytes. */
static inline tkh_norm_shape tkh_norm_shape_of(int64_t n, size_t size)
{
    const int64_t per = 16 / (int64_t)size, vectors = (n + per - 1) / per;
    tkh_norm_shape s = { 1, TKH_NORM_VECTORS, 0 };
    while (s.group < TKH_NORM_VECTORS_GROUP && (int64_t)s.group * s.vectors < vectors)
        s.group *= 2;
    if ((int64_t)s.group * s.vectors < vectors) {
        s.vectors = TKH_NORM_MOST_VECTORS;
        while (s.group < TKH_NORM_MOST_GROUP && (int64_t)s.group * s.vectors < vectors)
            s.group *= 2;
        if ((int64_t)s.group * s.vectors < vectors)
            s.vectors = 0;
    }
    s.block = s.group > 32 ? s.group : TKH_NORM_ROWS_BLOCK;
    return s;
}

/* The most additions on one path of a row's fold in a layout, for the oracle's bound; 'size'
 * is the input's element size. Rows: each thread's own (whole 16-byte vectors, which bounds
 * the count of a thread that walks single elements), one from the identity, and
 * log2(group) in the group's butterfly. Columns: the whole row in order. */
static inline int64_t tkh_norm_depth(int mode, int64_t n, size_t size)
{
    if (mode != TKH_PLAN_ROWS)
        return n + 1;
    const unsigned g = tkh_norm_shape_of(n, size).group;
    const int64_t per = 16 / (int64_t)size, step = (int64_t)g * per;
    int64_t depth = (n + step - 1) / step * per + 1;
    for (unsigned w = g; w > 1; w >>= 1)
        ++depth;
    return depth;
}

/* The plan of one contiguous row of n elements: 'arrays' arrays, the last the output,
 * which steps along the row where it keeps the axis (a map) and not at all otherwise. */
static inline void tkh_norm_row_plan(tkh_plan *p, int64_t n, unsigned arrays, int keeps_axis)
{
    memset(p, 0, sizeof *p);
    p->ndim = 1;
    p->reduced = 1;
    p->mode = TKH_PLAN_ROWS;
    p->count = 1;
    p->reduce_count = n;
    p->split = 1;
    p->chunk = n;
    p->size[0] = n;
    p->wide = n > INT32_MAX;
    for (unsigned a = 0; a < arrays; ++a)
        p->stride[a][0] = a + 1 < arrays || keeps_axis;
    tkh_plan_magic(p->wide || n == 0 ? 1 : (uint32_t)n, &p->magic[0], &p->shift[0]);
}

/* The plan of a matrix product's slices of k (p->split of p->chunk, dimension 0 k, 1 n, 2 m,
 * the rest the batch; 'arrays' arrays, a and b first, 'out' the output): k cut to one slice,
 * the slices one batch dimension more (a and b step a slice along k; the other inputs do not
 * step), and the output the partials, [split, batch..., m, n] compact in the accumulator's
 * type (TKH_PLAN_PARTIALS). Returns 0 where p has no such slices or no dimension to spare. */
static inline int tkh_plan_slices(const tkh_plan *p, unsigned arrays, unsigned out, tkh_plan *q)
{
    if (p->split <= 1 || p->ndim < 3 || p->ndim >= TKH_MAX_DIMS || p->chunk * p->split != p->size[0])
        return 0;
    *q = *p;
    const int d = q->ndim++;
    q->size[0] = p->chunk;
    q->size[d] = p->split;
    for (unsigned x = 0; x < arrays; ++x)
        q->stride[x][d] = x < 2 ? p->chunk * p->stride[x][0] : 0;
    q->stride[out][0] = 0;
    q->stride[out][1] = 1;
    q->stride[out][2] = p->size[1];
    for (int e = 3; e <= d; ++e)
        q->stride[out][e] = q->stride[out][e - 1] * q->size[e - 1];
    q->count = p->count * p->split;
    q->mode = TKH_PLAN_PARTIALS;
    q->split = 1;
    q->wide = 1;
    return 1;
}

/* Enqueues a kernel over a plan; returns the runtime's error code (0 on success). The
 * pointers are each array's element at offset 0 (offsets may be negative). A reduction or
 * a matrix product whose plan has split > 1 needs 'scratch': split * count partials of the
 * kernel's scratch_size bytes on the device (else NULL). */
typedef int (*tkh_launch_plan_fn)(const void *const *inputs, void *const *outputs,
    const void *const *scalars, const tkh_plan *plan, unsigned grid, unsigned block, void *scratch,
    void *stream);

#endif
