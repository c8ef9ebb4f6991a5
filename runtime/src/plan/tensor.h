/* Tensor calls (tensor.c: checks and the plan; tensor_oracle.c: walking the plan on the
 * host; tensor_run.c: the host and device paths). */
#ifndef TOKITAI_HIP_TENSOR_INTERNAL_H
#define TOKITAI_HIP_TENSOR_INTERNAL_H

#include <string.h>

#include "entry.h"
#include "oracle.h"
#include "tokitai_hip/tensor.h"

/* One tensor call, checked and planned. Arrays are numbered inputs first, then outputs. */
typedef struct tkhi_tensor_call {
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
    tkh_plan plan;
    int flat;                              /* everything compact, of one shape (for a reduction:
                                              over every axis): the flat kernels do it */
    unsigned fold_grid, fold_block;        /* reductions: the launch shape the sum bound
                                              assumes (an axis kernel's: 1 and its threads
                                              along one output's elements) */
} tkhi_tensor_call;

/* The kernel's shape: a reduction, a normalization (docs/normalizations.md); whether the
 * plan's dimensions [0, reduced) are folded (the host path's pieces never cut them), and
 * whether the outputs drop them (not a normalization's map). */
static inline int tkhi_is_reduction(const tkh_kernel_info *k) { return strcmp(k->shape, "reduction") == 0; }
static inline int tkhi_is_normalization(const tkh_kernel_info *k) { return strcmp(k->shape, "normalization") == 0; }
static inline int tkhi_folds_axes(const tkh_kernel_info *k) { return tkhi_is_reduction(k) || tkhi_is_normalization(k); }
static inline int tkhi_drops_axes(const tkh_kernel_info *k)
{
    return tkhi_is_reduction(k) || (tkhi_is_normalization(k) && k->out_count == 1);
}

/* Elements of each output over plan p: its count, times the axis for a normalization's
 * map (whose output keeps it). */
static inline int64_t tkhi_plan_outputs(const tkh_kernel_info *k, const tkh_plan *p)
{
    return tkhi_folds_axes(k) && !tkhi_drops_axes(k) ? p->count * p->reduce_count : p->count;
}

/* This platform's DLPack device type (kDLCUDA or kDLROCM). */
TKH_HIDDEN DLDeviceType tkhi_device_type(const tkh_context *ctx);

/* A normalization's flat entry points (tkh_kernel_call, _enqueue): the n elements are one
 * row, passed as 1-D tensors on the host or the context's device (a column NULL: its
 * default) to tkh_tensor_call. Fails as those do. */
TKH_HIDDEN tkh_status tkhi_normalization_flat(const char *fn, tkh_context *ctx, const tkh_kernel_info *k,
    const tkh_args *args, size_t n, int on_device, tkh_stream stream, tkh_report *report);

/* Checks the tensors against the kernel's signature and works out the plan.
 * Fails as tkh_tensor_call does before any device work. */
TKH_HIDDEN tkh_status tkhi_tensor_prepare(const char *fn, const tkh_context *ctx,
    const tkh_kernel_info *kernel, const tkh_tensor_args *args, tkhi_tensor_call *call);

/* The dense offsets of the plan (row-major in the index space of the call's outputs):
 * what the host path's device outputs use. */
TKH_HIDDEN void tkhi_plan_dense_strides(const tkh_plan *plan, int reduced, int64_t *stride);

/* Bytes of array a's span. */
static inline size_t tkhi_span_bytes(const tkhi_tensor_call *c, unsigned a)
{
    return (size_t)(c->hi[a] - c->lo[a] + 1) * c->size[a];
}

/* "f32", "bool" (TKH_DLPACK_BOOL), or "code 5, 64 bits, 1 lanes" for what is no type of ours. */
TKH_HIDDEN const char *tkhi_dtype_name(DLDataType t, char *buf, size_t size);

/* Our type that t is ("f32"), or NULL: the same without formatting. */
TKH_HIDDEN const char *tkhi_dtype_type(DLDataType t);

/* "[4096, 1]" */
TKH_HIDDEN const char *tkhi_format_dims(char *buf, size_t size, int ndim, const int64_t *dims);

/* The multi-index of linear index 'linear' of the call's index space, "[3, 17]"; for a
 * reduction, of output 'linear' with ':' at the reduced axes. */
TKH_HIDDEN const char *tkhi_format_index(const tkhi_tensor_call *c, int64_t linear, char *buf,
    size_t size);

/* Evidence lines of the plan: each tensor's dtype, shape and strides, the broadcast, the
 * merged plan. */
TKH_HIDDEN void tkhi_plan_evidence(const tkhi_tensor_call *c, tkh_report *report);

/* Compares the outputs with the oracle walking the plan, under 'policy'. 'base' is where
 * each array's element at offset 0 lies on the host, with the plan's strides for inputs and
 * 'out_stride' (per output, per plan dimension) for outputs. Fills o->bad (a linear index of
 * the outputs' index space, or SIZE_MAX), o->compared and o->note.
 * Fails with: TKH_ERR_HOST_ALLOC. */
TKH_HIDDEN tkh_status tkhi_tensor_check(const tkhi_tensor_call *c, const tkh_oracle_policy *policy,
    unsigned char *const *base, const int64_t (*out_stride)[TKH_MAX_DIMS], const void *const *scalars,
    tkhi_oracle *o);

/* Copies output element by element from a dense buffer (tkhi_plan_dense_strides) into the
 * caller's tensor. */
TKH_HIDDEN void tkhi_tensor_scatter(const tkhi_tensor_call *c, unsigned output, const void *dense);

#endif
