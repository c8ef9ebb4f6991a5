/* The plan layer, its one door: the checks of a call's arguments (flat arrays or DLPack
 * tensors), admission, and the call with its iteration plan, the one description of a
 * call that the shapes, the oracle and both paths work from. */
#ifndef TOKITAI_HIP_PLAN_LAYER_H
#define TOKITAI_HIP_PLAN_LAYER_H

#include <string.h>

#include "platform/platform.h"
#include "tokitai_hip/tensor.h"

/* The arrays of one call. */
typedef struct tkhi_arrays {
    const void *in[TKH_MAX_INPUTS];
    void *out[TKH_MAX_OUTPUTS];
} tkhi_arrays;

/* Byte sizes of one call's arrays. */
typedef struct tkhi_sizes {
    size_t in[TKH_MAX_INPUTS];   /* bytes of each input */
    size_t out[TKH_MAX_OUTPUTS]; /* bytes of each output */
    size_t widest;               /* bytes of the widest element of any array */
} tkhi_sizes;

/* The head of every entry point's checks: ctx, kernel and args not NULL, and a kernel
 * within this runtime's limits of arrays and scalars.
 * Fails with: TKH_ERR_NULL_POINTER, TKH_ERR_ARITY. */
TKH_HIDDEN tkh_status tkhi_check_call(const char *fn, const void *ctx, const tkh_kernel_info *kernel,
    const void *args);

/* The same without a context (tkh_tensor_output_shapes takes none). */
TKH_HIDDEN tkh_status tkhi_check_kernel(const char *fn, const tkh_kernel_info *kernel, const void *args);

/* The scalars of a call: the list, and each one, not NULL. Fails with: TKH_ERR_NULL_POINTER. */
TKH_HIDDEN tkh_status tkhi_check_scalars(const char *fn, const tkh_kernel_info *k, const void *const *scalars);

/* A flat call's checks (args, n, sizes, overlaps), then admission, then, on_device, each
 * pointer aligned to its element size (TKH_ERR_INVALID_ARGUMENT); on success *arrays
 * holds the arrays and *bytes their sizes. Fails as tkh_kernel_call (tkh_kernel_enqueue)
 * does before any device work. */
TKH_HIDDEN tkh_status tkhi_check_args(const char *fn, tkh_context *ctx,
    const tkh_kernel_info *kernel, const tkh_args *args, size_t n, int on_device, tkhi_arrays *arrays,
    tkhi_sizes *bytes);

/* Admission of kernel k on the context's device (tkh_kernel_admit), remembered for the
 * kernel admitted last. Fails with: TKH_ERR_NO_KERNEL_FOR_ARCH. */
TKH_HIDDEN tkh_status tkhi_admit(tkh_context *ctx, const tkh_kernel_info *kernel);

/* The args of a one-output kernel without scalars (tkh_kernel_run, tkh_kernel_launch);
 * TKH_ERR_ARITY for any other kernel. */
TKH_HIDDEN tkh_status tkhi_single_output(const char *fn, const tkh_kernel_info *kernel,
    const void *const *inputs, unsigned input_count, void *const *out, tkh_args *args);

/* One call, checked and planned. Arrays are numbered inputs first, then outputs. */
typedef struct tkhi_call {
    const tkh_kernel_info *kernel;
    const char *fn;
    int on_device;                         /* device tensors */
    unsigned arrays;                       /* arity + output_count */
    const DLTensor *tensor[TKH_MAX_ARRAYS];
    unsigned char *base[TKH_MAX_ARRAYS];   /* data + byte_offset: the element at offset 0 */
    size_t size[TKH_MAX_ARRAYS];           /* bytes per element */
    int64_t lo[TKH_MAX_ARRAYS], hi[TKH_MAX_ARRAYS]; /* offsets (elements) of the array's lowest
                                                       and highest element: its span */
    int ndim;                              /* the index space in messages: the broadcast shape */
    int64_t shape[TKH_MAX_DIMS];           /* (elementwise), the input's (reductions) */
    int reduced_axis[TKH_MAX_DIMS];        /* reductions, normalizations: 1 where that axis is
                                              reduced (normalized along) */
    int absent[TKH_MAX_ARRAYS];            /* normalizations: a column not given (NULL): its
                                              default, no memory */
    int folds;                             /* the plan's dimensions [0, reduced) are folded into
                                              each output (the host path's pieces never cut them) */
    int drops;                             /* and the outputs drop them: one element per kept
                                              index (not a normalization's map) */
    tkh_plan plan;
    int flat;                              /* everything compact, of one shape (for a reduction:
                                              over every axis): the flat kernels do it */
    unsigned fold_grid, fold_block;        /* reductions: the launch shape the sum bound
                                              assumes (an axis kernel's: 1 and its threads
                                              along one output's elements) */
    int nearest;                           /* matrix products: the sums the bound assumes
                                              (tkh_product_nearest_fn), of the launch */
    int shapes_only;                       /* planned for the outputs' shapes alone
                                              (tkh_tensor_output_shapes): no context, no outputs */
    int out_ndim;                          /* the shape every output must have, recorded by */
    int64_t out_shape[TKH_MAX_DIMS];       /* the shape's plan (tkhi_outputs_shape) */
} tkhi_call;

/* Records the shape the outputs must have (one for all of a call's outputs). Returns 1
 * when the call plans only that (c->shapes_only): the shape's plan stops there, before
 * it reads any output. */
static inline int tkhi_outputs_shape(tkhi_call *c, int ndim, const int64_t *shape)
{
    c->out_ndim = ndim;
    if (ndim > 0)
        memcpy(c->out_shape, shape, sizeof(int64_t) * (size_t)ndim);
    return c->shapes_only;
}

/* The array index of the first of the call's outputs whose shape is not 'shape' (ndim
 * dimensions), or -1 when every output's is. */
static inline int tkhi_output_unlike(const tkhi_call *c, int ndim, const int64_t *shape)
{
    for (unsigned a = c->kernel->arity; a < c->kernel->arity + c->kernel->output_count; ++a) {
        int same = c->tensor[a]->ndim == ndim;
        for (int d = 0; d < ndim && same; ++d)
            same = c->tensor[a]->shape[d] == shape[d];
        if (!same)
            return (int)a;
    }
    return -1;
}

/* The call a flat call on the host is: n elements of each input, one dimension, folded (a
 * reduction: out_count outputs) or not (n outputs), everything compact: the flat kernel's
 * plan, the arrays' addresses, sizes, spans and strides. */
TKH_HIDDEN void tkhi_call_flat(tkhi_call *c, const char *fn, const tkh_kernel_info *kernel,
    const tkhi_arrays *arrays, size_t n, int folds);

/* Elements of each output over plan p (the call's, or a piece of it): its count, times the
 * folded elements where the outputs keep those dimensions (a normalization's map). */
static inline int64_t tkhi_plan_outputs(const tkhi_call *c, const tkh_plan *p)
{
    return c->folds && !c->drops ? p->count * p->reduce_count : p->count;
}

/* Elements the flat kernel of a flat call runs over: the inputs' count. */
static inline size_t tkhi_flat_count(const tkhi_call *c)
{
    return (size_t)(c->folds ? c->plan.reduce_count : c->plan.count);
}

/* This platform's DLPack device type (kDLCUDA or kDLROCM). */
TKH_HIDDEN DLDeviceType tkhi_device_type(const tkh_context *ctx);

/* The first steps of planning a tensor call: the signature, each tensor's own checks and
 * span, and its strides in elements (stride). The shape's plan comes next, then
 * tkhi_call_finish. Fails as tkh_tensor_call does before any device work. With
 * 'shapes_only' (tkh_tensor_output_shapes): ctx is not read, args has no outputs
 * (output_count 0), its scalars are not read, and of the inputs only their ranks, shapes
 * and dtypes: what the outputs' shapes depend on. */
TKH_HIDDEN tkh_status tkhi_call_begin(const char *fn, const tkh_context *ctx, const tkh_kernel_info *kernel,
    const tkh_tensor_args *args, int shapes_only, tkhi_call *c, int64_t (*stride)[TKH_MAX_DIMS]);

/* The last: overlaps between the tensors, then the plan's index width, division constants
 * and split. Fails with: TKH_ERR_OVERLAP. */
TKH_HIDDEN tkh_status tkhi_call_finish(const char *fn, tkhi_call *c, int64_t (*stride)[TKH_MAX_DIMS]);

/* Tensor t's strides in elements over its own dimensions (compact row-major when NULL). */
TKH_HIDDEN void tkhi_own_strides(const DLTensor *t, int64_t *stride);

/* Merges dimension d into d - 1 where every array steps over both as over one, over
 * dimensions [from, to) of the innermost-first plan; returns the new end. */
TKH_HIDDEN int tkhi_plan_merge(tkh_plan *p, unsigned arrays, int from, int to);

/* The operand of array a, and its name in messages ("input 0 (x)"). */
TKH_HIDDEN const tkh_operand *tkhi_operand_of(const tkhi_call *c, unsigned a, char *name, size_t size);

/* The dense offsets of the plan (row-major in the index space of the call's outputs):
 * what the host path's device outputs use. */
TKH_HIDDEN void tkhi_plan_dense_strides(const tkh_plan *plan, int reduced, int64_t *stride);

/* Bytes of array a's span. */
static inline size_t tkhi_span_bytes(const tkhi_call *c, unsigned a)
{
    return (size_t)(c->hi[a] - c->lo[a] + 1) * c->size[a];
}

/* Whether the ranges of bytes of arrays a and b share any. */
static inline int tkhi_spans_overlap(const tkhi_call *c, unsigned a, unsigned b)
{
    if (c->hi[a] < c->lo[a] || c->hi[b] < c->lo[b])
        return 0;
    const uintptr_t x = (uintptr_t)(c->base[a] + c->lo[a] * (int64_t)c->size[a]);
    const uintptr_t y = (uintptr_t)(c->base[b] + c->lo[b] * (int64_t)c->size[b]);
    return x < y + tkhi_span_bytes(c, b) && y < x + tkhi_span_bytes(c, a);
}

/* "f32", "bool" (TKH_DLPACK_BOOL), or "code 5, 64 bits, 1 lanes" for what is no type of ours. */
TKH_HIDDEN const char *tkhi_dtype_name(DLDataType t, char *buf, size_t size);

/* Our type that t is ("f32"), or NULL: the same without formatting. */
TKH_HIDDEN const char *tkhi_dtype_type(DLDataType t);

/* "[4096, 1]" */
TKH_HIDDEN const char *tkhi_format_dims(char *buf, size_t size, int ndim, const int64_t *dims);

/* The multi-index of linear index 'linear' of the call's index space, "[3, 17]"; for a
 * reduction, of output 'linear' with ':' at the reduced axes. */
TKH_HIDDEN const char *tkhi_format_index(const tkhi_call *c, int64_t linear, char *buf, size_t size);

/* Evidence lines of each tensor: its dtype, shape and strides. */
TKH_HIDDEN void tkhi_tensor_evidence(const tkhi_call *c, tkh_report *report);

/* The evidence line of the merged plan; 'layout' ends it (", a block per row"). */
TKH_HIDDEN void tkhi_plan_line(const tkhi_call *c, const char *layout, tkh_report *report);

#endif
