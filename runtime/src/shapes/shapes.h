/* The shapes layer, its one door. Each op shape (elementwise, reduction, normalization,
 * matmul)
 * is one module behind one table of hooks (shape.c), indexed by the kernel's generated
 * tkh_shape_kind: how a call of it is planned, launched, checked and described. The paths
 * above run any shape through these. */
#ifndef TOKITAI_HIP_SHAPES_H
#define TOKITAI_HIP_SHAPES_H

#include <stdint.h>
#include <string.h>

#include "oracle/oracle.h"

/* The grid's most blocks: x 256 threads stays below HIP's 2^32 work-items. */
#define TKHI_MAX_GRID ((1u << 24) - 1)

/* How a shape's flat call runs (tkh_kernel_call's n elements): its flat kernel over them,
 * one row of a plan (normalizations), or none: a matrix product's flat call has three
 * sizes (tkh_product_call). */
enum { TKHI_FLAT_KERNEL, TKHI_FLAT_ROW, TKHI_FLAT_PRODUCT };

typedef struct tkhi_shape {
    int flat;
    /* Whether a call folds the plan's dimensions [0, reduced) into each output, and whether
     * kernel k's outputs then drop them (tkhi_call.folds, .drops). */
    int folds;
    int (*drops)(const tkh_kernel_info *k);
    /* Plans a tensor call, between tkhi_call_begin and tkhi_call_finish: the index space
     * (c->ndim, c->shape, c->reduced_axis), the outputs' shapes against it, the plan's
     * sizes and strides (from each tensor's 'stride'), and c->flat. Fails with the
     * shape's own messages (TKH_ERR_INVALID_ARGUMENT, TKH_ERR_EMPTY, TKH_ERR_NULL_POINTER).
     * Every check of the inputs comes before tkhi_outputs_shape, which records the outputs'
     * shape and ends a plan for it alone (tkh_tensor_output_shapes). */
    tkh_status (*plan)(const char *fn, tkhi_call *c, const tkh_tensor_args *args, int64_t (*stride)[TKH_MAX_DIMS]);
    /* The launch of the plan kernel over plan p (the call's, or a piece of it) whose input 0
     * lies at 'input': grid and block, and for reductions p's split and the launch shape the
     * oracle's sum bound assumes (c->fold_grid, c->fold_block). */
    void (*geometry)(const tkh_context *ctx, tkhi_call *c, tkh_plan *p, const void *input, unsigned *grid,
        unsigned *block);
    /* The launch of the flat kernel over n elements; NULL for a shape without flat kernels,
     * whose flat calls are plans of one row. */
    void (*flat_geometry)(const tkh_context *ctx, const tkh_kernel_info *k, size_t n, unsigned *grid,
        unsigned *block);
    /* The oracle's check of the call's kept indices [first, first + count) (the plan's count:
     * elementwise its elements, reductions their outputs, normalizations their rows), or,
     * where 'samples' is not NULL, of the count sorted indices there: the arrays at 'base'
     * with 'stride' per array and plan dimension. Adds to 'part' (bad: an index of the
     * outputs' index space, as the verdict names it), stopping at a difference. Fails
     * with TKH_ERR_HOST_ALLOC, leaving the message to the caller. */
    tkh_status (*check)(const tkhi_call *c, unsigned char *const *base, const int64_t (*stride)[TKH_MAX_DIMS],
        const void *const *scalars, int64_t first, int64_t count, const int64_t *samples, tkhi_oracle_part *part);
    /* The evidence line of what the call computes over ("reduced axes [1] of [4, 5]: ..."),
     * and the words for its plan's layout at the end of the plan line. */
    void (*describe)(const tkhi_call *c, tkh_report *report);
    const char *(*layout)(const tkhi_call *c);
    /* TKH_ORACLE_PROJECTED, for a shape that checks so (NULL for the others, checked as
     * under full): the state the call's checks share, from its inputs at 'base' (o->projection
     * and o->release; none set: checked as under full), and the check of kept indices
     * [first, first + count) with it, as 'check' adds to 'part'. Both fail with
     * TKH_ERR_HOST_ALLOC only. */
    tkh_status (*project_begin)(const tkhi_call *c, tkhi_oracle *o, unsigned char *const *base,
        const int64_t (*stride)[TKH_MAX_DIMS]);
    tkh_status (*project)(const tkhi_call *c, const void *projection, unsigned char *const *base,
        const int64_t (*stride)[TKH_MAX_DIMS], const void *const *scalars, int64_t first, int64_t count,
        tkhi_oracle_part *part);
    /* TKH_ORACLE_PROJECTED on the device path, for a shape whose kernels check so on the
     * device (k->project_device; NULL for the others): the kernels' arguments for the call,
     * and the bytes of block sums they need; 0 where it is checked on the host instead. */
    size_t (*project_device)(const tkhi_call *c, const tkh_oracle_policy *policy, tkh_projection_args *args);
} tkhi_shape;

TKH_HIDDEN extern const tkhi_shape tkhi_elementwise_shape, tkhi_reduction_shape, tkhi_normalization_shape,
    tkhi_matmul_shape;

/* The matrix product's full check (its 'check' hook) and its projected check
 * (matmul_projection.c), the hooks the table holds. */
TKH_HIDDEN tkh_status tkhi_matmul_check(const tkhi_call *c, unsigned char *const *base,
    const int64_t (*stride)[TKH_MAX_DIMS], const void *const *scalars, int64_t first, int64_t count,
    const int64_t *samples, tkhi_oracle_part *part);
TKH_HIDDEN tkh_status tkhi_matmul_project_begin(const tkhi_call *c, tkhi_oracle *o, unsigned char *const *base,
    const int64_t (*stride)[TKH_MAX_DIMS]);
TKH_HIDDEN tkh_status tkhi_matmul_project(const tkhi_call *c, const void *projection, unsigned char *const *base,
    const int64_t (*stride)[TKH_MAX_DIMS], const void *const *scalars, int64_t first, int64_t count,
    tkhi_oracle_part *part);

TKH_HIDDEN size_t tkhi_matmul_project_device(const tkhi_call *c, const tkh_oracle_policy *policy,
    tkh_projection_args *args);

/* Float element p of type t (no wider than double) exactly: f64, f32, f16 and bf16 decoded
 * here, where a hot loop reads every element (a call each would cost more than the sums),
 * any other through t->to_double. */
static inline double tkhi_real(const tkh_scalar_type *t, const unsigned char *p)
{
    if (t->bits == 64 && t->mantissa == 53) {
        double d;
        memcpy(&d, p, sizeof d);
        return d;
    }
    float f;
    uint32_t u;
    if (t->bits == 32 && t->mantissa == 24) {
        memcpy(&f, p, sizeof f);
        return f;
    }
    uint16_t h;
    if (t->bits != 16 || (t->mantissa != 8 && t->mantissa != 11))
        return t->to_double(p);
    memcpy(&h, p, sizeof h);
    if (t->mantissa == 8) /* bf16: the high half of an f32 */
        u = (uint32_t)h << 16;
    else { /* f16: 5 exponent bits, 10 fraction bits */
        const uint32_t e = (h >> 10) & 31, frac = h & 1023;
        if (e == 0)
            return (h >> 15 ? -1.0 : 1.0) * (double)frac * 0x1p-24;
        u = (uint32_t)(h >> 15) << 31 | (e == 31 ? 255u : e + 112) << 23 | frac << 13;
    }
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The hooks of kernel k's shape (k->shape_kind checked: tkhi_shape_known). */
TKH_HIDDEN const tkhi_shape *tkhi_shape_of(const tkh_kernel_info *k);

/* TKH_OK when this runtime has a module for k's shape, else TKH_ERR_INVALID_ARGUMENT
 * naming it (a catalog of a newer generator). */
TKH_HIDDEN tkh_status tkhi_shape_known(const char *fn, const tkh_kernel_info *k);

/* Checks the tensors against the kernel's signature and works out the plan.
 * Fails as tkh_tensor_call does before any device work. With 'shapes_only', only as far
 * as the outputs' shapes (c->out_ndim, c->out_shape; tkhi_call_begin says what is read). */
TKH_HIDDEN tkh_status tkhi_prepare(const char *fn, const tkh_context *ctx, const tkh_kernel_info *kernel,
    const tkh_tensor_args *args, int shapes_only, tkhi_call *c);

/* After tkhi_oracle_begin: what o's policy needs from the inputs at 'base' before any
 * check (the projected check's state). Fails with: TKH_ERR_HOST_ALLOC (raised here). */
TKH_HIDDEN tkh_status tkhi_check_begin(tkhi_oracle *o, const tkhi_call *c, unsigned char *const *base,
    const int64_t (*stride)[TKH_MAX_DIMS]);

/* Kept indices [first, first + count) of the call under o's policy (all of them, o's
 * samples among them, or their projections), by the shape's check, into 'part'. Safe on
 * the crew: a failure is left in part->failed. */
TKH_HIDDEN void tkhi_check_range(const tkhi_oracle *o, const tkhi_call *c, unsigned char *const *base,
    const int64_t (*stride)[TKH_MAX_DIMS], const void *const *scalars, int64_t first, int64_t count,
    tkhi_oracle_part *part);

/* The whole call checked on this thread under 'policy' (o then holds the result; the
 * caller ends it with tkhi_oracle_end). Fails with: TKH_ERR_HOST_ALLOC. */
TKH_HIDDEN tkh_status tkhi_check(const tkhi_call *c, const tkh_oracle_policy *policy, unsigned char *const *base,
    const int64_t (*stride)[TKH_MAX_DIMS], const void *const *scalars, tkhi_oracle *o);

/* Evidence lines of the plan: each tensor's dtype, shape and strides, the shape's line,
 * the merged plan. Nothing without a report. */
TKH_HIDDEN void tkhi_plan_evidence(const tkhi_call *c, tkh_report *report);

/* One kernel launch of a call: the flat kernel over n elements where the call is flat,
 * else the plan kernel over 'plan'; its geometry from the shape (tkhi_launch_choose). */
typedef struct tkhi_launch_spec {
    tkh_context *ctx;
    const tkh_kernel_info *kernel;
    tkhi_call *c;             /* the call, which the plan kernel's launch reads; NULL for the
                                 flat kernel of a flat call on the device (tkhi_device_flat) */
    const void *const *in;
    void *const *out;
    const void *const *scalars;
    const tkh_plan *plan;     /* NULL: the flat kernel over n */
    size_t n;
    unsigned grid, block;
    void *stream;
    size_t copies;            /* a matrix product's operand copies (tkh_kernel_info.copies), bytes:
                                 tkhi_launch_choose's, for the scratch and the report */
} tkhi_launch_spec;

/* The flat kernel's geometry over n elements (the shape's). */
TKH_HIDDEN void tkhi_flat_geometry(const tkh_context *ctx, const tkh_kernel_info *k, size_t n, unsigned *grid,
    unsigned *block);

/* Sets l's grid and block (and, for the plan kernel, the plan's split and l->copies), for
 * l->in[0]. */
TKH_HIDDEN void tkhi_launch_choose(tkhi_launch_spec *l, tkh_plan *plan);

/* Bytes of device scratch l needs: a split plan's partials, then (from a multiple of 256) a
 * matrix product's operand copies (tkh_kernel_info.copies); 0: none. */
TKH_HIDDEN size_t tkhi_launch_scratch(const tkhi_launch_spec *l);

/* Enqueues l with 'scratch' (tkhi_launch_scratch bytes). Fails with: TKH_ERR_LAUNCH. */
TKH_HIDDEN tkh_status tkhi_launch_run(void *l, void *scratch);

/* A matrix product's extra input's extent (tkh_operand.extent): "n", "m" or "mn"; a registry
 * from before extents (NULL) means "n". */
static inline const char *tkhi_extent_of(const tkh_operand *o)
{
    return o->extent != NULL ? o->extent : "n";
}

/* The launch's lines in the report ("ran", "enqueued"), its grid and block, and a matrix
 * product's operand copies where its launcher makes them. */
TKH_HIDDEN void tkhi_launch_evidence(const tkhi_launch_spec *l, const char *what, tkh_report *report);

#endif
