/* Kernels, registries and the generic entry points every generated one goes through. */
#ifndef TOKITAI_HIP_KERNEL_H
#define TOKITAI_HIP_KERNEL_H

#include <stddef.h>

#include "tokitai_hip/context.h"
#include "tokitai_hip/codegen/plan.h"
#include "tokitai_hip/codegen/projection.h"
#include "tokitai_hip/report.h"
#include "tokitai_hip/shape_kinds.h"
#include "tokitai_hip/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A stream of the platform's runtime (hipStream_t or cudaStream_t); NULL is the default. */
typedef void *tkh_stream;

/* The operands of one call: the input arrays, the output arrays and the scalars, each in
 * the order the kernel's signature declares them (tkh_kernel_info.inputs, .outputs,
 * .scalars). An array holds n elements of its type (a reduction's output: out_count); a
 * scalar points at one value of its type. 'scalars' may be NULL when there are none. */
typedef struct tkh_args {
    const void *const *inputs;
    unsigned input_count;
    void *const *outputs;
    unsigned output_count;
    const void *const *scalars;
    unsigned scalar_count;
} tkh_args;

/* Enqueues the kernel; returns the runtime's error code (0 on success). 'scratch' is a
 * device buffer of grid * scratch_size bytes (NULL when scratch_size is 0). */
typedef int (*tkh_launch_fn)(const void *const *inputs, void *const *outputs,
    const void *const *scalars, size_t n, unsigned grid, unsigned block, void *scratch, void *stream);

/* What a check writes besides its verdict. Start it zeroed: detail and worst accumulate
 * over the calls of one range. */
typedef struct tkh_check_note {
    char detail[256];     /* what differed at the first difference found */
    double error;         /* the ulp rule: that output's error in ulps (INFINITY when a
                             rule for special values failed); 0 for other rules */
    double worst;         /* the largest error among the outputs within the bound, in ulps
                             (the ulp rule; 0 for others) */
    size_t worst_index;   /* where, as an output index relative to the call's outputs */
} tkh_check_note;

/* Compares the outputs of a run over n input elements with the oracle; returns the first
 * element that differs in any output (writing what differed, and in which output, into
 * note->detail), or n when all agree. grid and block are the launch shape (a float sum's
 * error bound depends on it). Under the ulp rule it raises note->worst (and sets
 * worst_index) to the largest error among the elements it compared before the first
 * difference, where that exceeds the note's, and puts the first difference's error in
 * note->error. */
typedef size_t (*tkh_check_fn)(const void *const *inputs, const void *const *outputs,
    const void *const *scalars, size_t n, unsigned grid, unsigned block, tkh_check_note *note);

/* A reduction oracle's state over a run of input elements, so that threads can fold
 * parts of the input and merge them. Start from all zero bytes. */
typedef struct tkh_fold {
    long double sum, comp, mag;   /* bounded float sums: compensated sum, sum of |x| */
    int nan, pos_inf, neg_inf;    /* ... and what they met */
    int started;                  /* exact reductions: acc holds a value */
    unsigned char acc[16];        /* exact reductions: the accumulator (compute type) */
} tkh_fold;

/* Folds input elements [0, count) into *state; 'first' is the index of input[0] in the
 * whole input (index-aware reductions, argmin and argmax, need it). */
typedef void (*tkh_fold_fn)(const void *input, size_t first, size_t count, tkh_fold *state);

/* Folds *later (over input after that of *state) into *state. */
typedef void (*tkh_merge_fn)(tkh_fold *state, const tkh_fold *later);

/* Compares a reduction's output with the folded state of all n inputs (n may be 0, for
 * a reduction with an identity): 1 when it agrees, else 0 with what differed in
 * note->detail. */
typedef int (*tkh_finish_fn)(const tkh_fold *state, const void *const *outputs, size_t n,
    unsigned grid, unsigned block, tkh_check_note *note);

/* A normalization's check of one row of n elements: its input arrays gathered
 * contiguous (NULL for a column not given: its default), the output's n elements (a map)
 * or one (a post step), and the depth of the device's folds (tkh_plan.h's
 * tkh_norm_depth). Returns the first output element outside the oracle's bound (what
 * differed in note->detail) or n; note->worst rises to the largest share of the bound
 * used, worst_index where. */
typedef size_t (*tkh_row_check_fn)(const void *const *inputs, const void *output,
    const void *const *scalars, size_t n, int64_t depth, tkh_check_note *note);

/* A matrix product's check of 'count' outputs along one row of the product (docs/matmul.md):
 * output j lies at out[j * out_n] and is compared with the epilogue of the sum over i < k
 * of a[i * a_k] * b[i * b_k + j * b_n], with extra input c's element (a column's, a row's
 * or an addend's, at the row's start) at columns[c][j * column_n[c]] (columns[c] NULL: its
 * default), under the oracle's bound on the device's accumulation of k products: that of
 * round-to-nearest operations where 'nearest' (tkh_product_nearest_fn), else that of
 * matrix instructions. Returns the first output outside the bound (what differed in
 * note->detail) or count; note->worst rises to the largest share of the bound used,
 * worst_index (within the run) where. */
typedef size_t (*tkh_product_check_fn)(const void *a, int64_t a_k, const void *b, int64_t b_k, int64_t b_n,
    const void *const *columns, const int64_t *column_n, const void *out, int64_t out_n,
    const void *const *scalars, size_t k, int nearest, size_t count, tkh_check_note *note);

/* Whether every kernel a matrix product's launcher may take for 'plan' (a call's, or any
 * piece of it) on the current device sums in round-to-nearest operations of the
 * accumulator's type (the FMA tiles, the small-m kernel): 1, and the oracle's bound is that
 * of k such roundings at the unit roundoff, in any order; 0 where a matrix instruction may
 * run (its own rounding is not IEEE's: the bound of 2k + 2 roundings at twice the unit
 * roundoff, docs/matmul.md). Answers as the launcher chooses, from the device's compute
 * capability or architecture (where the runtime cannot say, both take the FMA tiles). */
typedef int (*tkh_product_nearest_fn)(const tkh_plan *plan);

/* The device bytes a matrix product's launcher needs for 'plan' over 'inputs' (device
 * pointers) beyond a split plan's partials: operands it copies into another layout before
 * the product (8-bit operands K-major for Hopper's wgmma, which reads them so only), 0 where
 * it makes none. Answers as the launcher chooses, on the current device. The launcher finds
 * them in its scratch past the partials, rounded up to 256 bytes. */
typedef size_t (*tkh_product_copies_fn)(const void *const *inputs, const tkh_plan *plan);

/* A matrix product's projected check on the device (docs/matmul.md): enqueues on 'stream'
 * the projection kernels of the call whose plan is 'plan' (inputs[0] a, inputs[1] b,
 * inputs[2] the extra input or NULL; 'output' the product's output), the block sums of b's
 * rows into 'sums' (16 bytes a batch, row of b and block) and the verdict into 'result'
 * (device memory). Kernels of their own: they share no code with the product's. Returns 0
 * or the runtime's error code of the launch. */
typedef int (*tkh_product_project_fn)(const void *const *inputs, const void *output, const tkh_plan *plan,
    const tkh_projection_args *args, void *sums, tkh_projection_result *result, void *stream);

/* One operand of a kernel's signature. */
typedef struct tkh_operand {
    const char *name;                 /* as declared: "x", "alpha" ("lhs", "rhs" in the short form) */
    const char *type;                 /* "f32", "bool" */
    size_t size;                      /* bytes per element (per value, for a scalar) */
    const char *compare_rule;         /* outputs: "exact", "sum_bound" or "ulp"; else NULL */
    double ulp_bound;                 /* outputs under the ulp rule: the bound in ulps */
    double abs_tolerance;             /* outputs under the ulp rule: an absolute floor, as
                                         declared with compare = { ulps = N, atol = A }: a
                                         result within A of the reference passes (0: none) */
    const char *default_value;        /* inputs that may be absent (NULL: a normalization's
                                         column with a default): the value taken instead,
                                         as declared ("1"); NULL for required operands */
    const char *extent;               /* a matrix product's inputs after a and b: "n" (a
                                         column, [n]), "m" (a row, [m]) or "mn" (an addend
                                         broadcast to the output [..., m, n]); NULL
                                         otherwise (a registry from before: "n") */
} tkh_operand;

/* One generated kernel and its contract. Lists are NULL-terminated. */
typedef struct tkh_kernel_info {
    const char *catalog;              /* "core", or a downstream catalog's name */
    const char *op;                   /* "add" */
    const char *type;                 /* the types its placeholders are bound to, joined by
                                         '_': "i32"; "f16_f32" for cast f16 to f32 */
    const char *signature;            /* "scalar f32 alpha, f32 x -> f32 out" */
    const char *symbol;               /* device symbol, "tkhk_add_i32" */
    const char *shape;                /* "elementwise", "reduction", "normalization" or "matmul" */
    tkh_shape_kind shape_kind;        /* the same as the runtime numbers it */
    unsigned arity;                   /* number of input arrays */
    const tkh_operand *inputs;        /* arity of them */
    unsigned output_count;
    const tkh_operand *outputs;
    unsigned scalar_count;
    const tkh_operand *scalars;       /* NULL when there are none */
    size_t out_count;                 /* elements of each output: 0 means n (elementwise) */
    int has_identity;                 /* reductions: a reduction over no elements gives the
                                         identity (its post step with n = 0); 0: it is
                                         refused with TKH_ERR_EMPTY (amax, argmin) */
    size_t scratch_size;              /* device bytes per block of the grid, or per output and
                                         slice of a split plan (reductions, matrix products) */
    unsigned block;                   /* threads per block */
    unsigned vector_width;            /* elements per thread and step on aligned buffers */
    const char *domain;               /* "integer" */
    const char *representation;       /* "dense" */
    const char *semantics;
    const char *compare_rule;         /* "exact", "sum_bound" or "ulp" (docs/semantics.md); the
                                         outputs' rules joined by ',' where they differ */
    double ulp_bound;                 /* the largest of the outputs' ulp bounds; else 0 */
    double abs_tolerance;             /* the largest of the outputs' absolute floors; else 0 */
    const char *comparison;           /* how the oracle compares, in words */
    const char *platform;             /* "amd" or "nvidia" */
    const char *const *targets;       /* what it was compiled for: "gfx90a:xnack-", "sm_90" */
    const char *source_fingerprint;   /* "sha256:..." of the generated kernel source */
    const char *compiler;             /* compiler identity line */
    const char *compiler_fingerprint;
    const char *build_fingerprint;    /* of the build options and targets */
    const char *build_command;
    const char *const *obligations;
    const char *const *required_evidence;
    const char *const *degradations;
    const char *const *non_claims;
    tkh_launch_fn launch;             /* flat kernels; NULL for matrix products */
    tkh_check_fn check;               /* flat checks; NULL for matrix products */
    tkh_fold_fn fold;                 /* reductions: the check in parts; NULL otherwise */
    tkh_merge_fn merge;
    tkh_finish_fn finish;
    tkh_launch_plan_fn launch_plan;   /* tensors: the strided kernel (elementwise), the axis
                                         kernel (reductions and normalizations) */
    tkh_row_check_fn check_row;       /* normalizations: the check of one row; NULL otherwise */
    tkh_product_check_fn check_product; /* matrix products: the check of outputs along a row;
                                         NULL otherwise */
    int b_nk;                         /* matrix products: 1 when b lies [..., n, k] (linear's
                                         weight: out = a @ b^T), 0 for [..., k, n] */
    int projectable;                  /* matrix products whose output is the sum, or the sum
                                         plus its one extra input (a bias, a residual):
                                         checkable under TKH_ORACLE_PROJECTED; 0 otherwise */
    const char *accumulator;          /* matrix products: the sum's type ("f32"); NULL otherwise */
    tkh_product_project_fn project_device; /* projectable matrix products: the projected check
                                         on the device; NULL otherwise (copied back) */
    tkh_product_nearest_fn nearest;   /* matrix products: which bound their sums take; NULL:
                                         that of matrix instructions */
    tkh_product_copies_fn copies;     /* matrix products: the scratch of operands' copies;
                                         NULL: none */
} tkh_kernel_info;

typedef struct tkh_registry {
    const char *name;
    const tkh_kernel_info *const *kernels;
    size_t count;
} tkh_registry;

/* The kernel for (op, type) in 'registry', or NULL (also for NULL arguments). */
TKH_API const tkh_kernel_info *tkh_registry_find(const tkh_registry *registry, const char *op,
    const char *type);

/* Admission: TKH_OK when one of the kernel's targets runs on a device of architecture
 * 'arch'. On amd a target without features ("gfx90a") admits every gfx90a, one with
 * features ("gfx90a:xnack-") only devices whose reported features agree; on nvidia
 * "sm_90" admits sm_90 only.
 * Fails with: TKH_ERR_NULL_POINTER, TKH_ERR_NO_KERNEL_FOR_ARCH (naming the arch and the
 * targets). */
TKH_API tkh_status tkh_kernel_admit(const tkh_kernel_info *kernel, const char *arch);

/* The oracle-checked host path: copies the inputs to the context's device, runs the
 * kernel with the scalars, copies the outputs back and compares every element with the
 * CPU oracle under the context's policy (every element by default;
 * tkh_context_set_oracle). Large inputs go in chunks through pinned staging, checked by
 * several host threads (docs/architecture.md). An output may be exactly one of the inputs
 * of the same element size; other overlaps (of an output with an input, or of two
 * outputs) are refused. 'report' may be NULL; when given it is always filled, on failure
 * too, with the scalars' values. The context keeps the device and pinned buffers it used
 * for the next call (tkh_context_trim frees them).
 * Fails with: TKH_ERR_NULL_POINTER, TKH_ERR_ARITY (counts that differ from the
 * signature's), TKH_ERR_EMPTY, TKH_ERR_SIZE_OVERFLOW, TKH_ERR_OVERLAP, TKH_ERR_NO_DEVICE,
 * TKH_ERR_NO_KERNEL_FOR_ARCH, TKH_ERR_RUNTIME (selecting the device, making streams),
 * TKH_ERR_DEVICE_ALLOC, TKH_ERR_HOST_ALLOC, TKH_ERR_COPY, TKH_ERR_LAUNCH, TKH_ERR_SYNC,
 * TKH_ERR_ORACLE_MISMATCH (element, output and values of the first mismatch). The outputs
 * are untouched when the call fails before the device work (arguments, admission,
 * allocation); after a later failure their content is unspecified (a chunked run may
 * have written part of them); after TKH_ERR_ORACLE_MISMATCH of a run of one chunk they
 * hold the device's results. */
TKH_API tkh_status tkh_kernel_call(tkh_context *ctx, const tkh_kernel_info *kernel,
    const tkh_args *args, size_t n, tkh_report *report);

/* tkh_kernel_call for a kernel of one output and no scalars.
 * Fails as tkh_kernel_call does; TKH_ERR_ARITY for a kernel of other outputs or scalars. */
TKH_API tkh_status tkh_kernel_run(tkh_context *ctx, const tkh_kernel_info *kernel,
    const void *const *inputs, unsigned input_count, void *out, size_t n, tkh_report *report);

/* The device path: enqueues the kernel on 'stream' over device buffers and returns; no
 * copies, no oracle, no wait. It makes the context's device current on the calling
 * thread. A reduction's partials come from a buffer the context keeps for that stream (8
 * streams; past that it allocates them, waits for the stream and frees them).
 * Fails with: TKH_ERR_NULL_POINTER, TKH_ERR_ARITY, TKH_ERR_EMPTY, TKH_ERR_SIZE_OVERFLOW,
 * TKH_ERR_INVALID_ARGUMENT (a pointer not aligned to its element size), TKH_ERR_OVERLAP,
 * TKH_ERR_NO_DEVICE, TKH_ERR_NO_KERNEL_FOR_ARCH, TKH_ERR_RUNTIME (selecting the device),
 * TKH_ERR_LAUNCH, and for reductions TKH_ERR_DEVICE_ALLOC and TKH_ERR_SYNC. */
TKH_API tkh_status tkh_kernel_enqueue(tkh_context *ctx, const tkh_kernel_info *kernel,
    const tkh_args *args, size_t n, tkh_stream stream);

/* tkh_kernel_enqueue for a kernel of one output and no scalars.
 * Fails as tkh_kernel_enqueue does; TKH_ERR_ARITY for a kernel of other outputs or scalars. */
TKH_API tkh_status tkh_kernel_launch(tkh_context *ctx, const tkh_kernel_info *kernel,
    const void *const *inputs, unsigned input_count, void *out, size_t n, tkh_stream stream);

/* A matrix product's flat call (docs/matmul.md): a is m x k, b is k x n (n x k for a kernel
 * whose b_nk, linear's weight), the output m x n, all dense and row-major on the host; each
 * column input n elements, each row input m, each addend m x n, or NULL for its default. It runs as tkh_tensor_call runs these
 * as 2-D tensors: the host path, checked under the context's policy. 'report' may be NULL.
 * Fails as tkh_tensor_call does, and with TKH_ERR_INVALID_ARGUMENT for a kernel that is not
 * a matrix product, TKH_ERR_SIZE_OVERFLOW for a size past INT64_MAX. A matrix product's
 * kernel refuses tkh_kernel_call (TKH_ERR_INVALID_ARGUMENT, naming this function). */
TKH_API tkh_status tkh_product_call(tkh_context *ctx, const tkh_kernel_info *kernel, const tkh_args *args,
    size_t m, size_t n, size_t k, tkh_report *report);

/* tkh_product_call on device buffers: enqueued on 'stream', checked only under the
 * context's device oracle policy (tkh_context_set_device_oracle), as tkh_tensor_call on
 * device tensors. Fails as that does. */
TKH_API tkh_status tkh_product_enqueue(tkh_context *ctx, const tkh_kernel_info *kernel, const tkh_args *args,
    size_t m, size_t n, size_t k, tkh_stream stream);

/* What tkh_registry_selftest did. */
typedef struct tkh_selftest_result {
    size_t runs;            /* oracle-checked runs made */
    size_t passed;          /* of which passed */
    char failure[640];      /* the first failure: kernel, n, seed, message; "" if none */
} tkh_selftest_result;

/* Runs every kernel of 'registry' through the oracle-checked host path at each of the
 * given sizes, on random inputs drawn from 'seed' (every bit pattern, so NaN, infinities
 * and subnormals too; values in [-1, 1) for bounded float sums) whose first elements hold
 * every combination of edge values (0, -1, MIN, MAX, 1), with the output poisoned before
 * each run. Stops at the first failure.
 * Fails with: TKH_ERR_NULL_POINTER, TKH_ERR_EMPTY (no sizes, or a size of 0),
 * TKH_ERR_SIZE_OVERFLOW (a size above SIZE_MAX / 8), TKH_ERR_HOST_ALLOC, and every failure
 * of tkh_kernel_run (the result names the run). */
TKH_API tkh_status tkh_registry_selftest(tkh_context *ctx, const tkh_registry *registry,
    const size_t *sizes, size_t size_count, unsigned long long seed, tkh_selftest_result *result);

#ifdef __cplusplus
}
#endif

#endif
