/* Tensor calls: DLPack tensors of any shape and strides, inputs broadcast by NumPy's
 * rules, reductions over any set of axes (docs/tensors.md). */
#ifndef TOKITAI_HIP_TENSOR_H
#define TOKITAI_HIP_TENSOR_H

#include <stdint.h>

#include <dlpack/dlpack.h>

#include "tokitai_hip/kernel.h"
#include "tokitai_hip/scalar_types.h" /* TKH_DLPACK_BOOL, the types' DLPack codes */

#ifdef __cplusplus
extern "C" {
#endif

/* The DLPack dtype of our type 'type' ("f32", "bf16", "bool": TKH_DLPACK_BOOL).
 * Fails with: TKH_ERR_NULL_POINTER, TKH_ERR_INVALID_ARGUMENT (no type of ours). */
TKH_API tkh_status tkh_dlpack_dtype(const char *type, DLDataType *dtype);

/* The operands of one tensor call, in the order the kernel's signature declares them.
 * Tensors on the host (kDLCPU, kDLCUDAHost, kDLROCMHost) take the oracle-checked host
 * path; tensors on the context's device (kDLCUDA on nvidia, kDLROCM on amd, device_id the
 * context's device; kDLCUDAManaged) the device path, enqueued on 'stream'. All tensors of
 * a call are on one side. Each input's dtype is its operand's type; its shape broadcasts
 * against the others' (NumPy's rules); strides may be NULL (compact, row-major), zero,
 * negative or any other. An elementwise kernel's outputs have the broadcast shape; a
 * reduction's the input's shape without the reduced axes, or with them as 1 under
 * keepdims. */
typedef struct tkh_tensor_args {
    const DLTensor *const *inputs;
    unsigned input_count;
    const DLTensor *const *outputs;
    unsigned output_count;
    const void *const *scalars;   /* as in tkh_args; NULL when there are none */
    unsigned scalar_count;
    const int64_t *axes;          /* reductions: the axes reduced, negative ones counted from
                                     the end; NULL with axis_count 0: every axis (NumPy's
                                     axis=None); non-NULL with axis_count 0: none, each output
                                     its one element (NumPy's axis=(), not torch's dim=()) */
    unsigned axis_count;
    int keepdims;                 /* reductions: the outputs keep the reduced axes as 1 */
    tkh_stream stream;            /* device tensors: where the work is enqueued */
} tkh_tensor_args;

/* Runs the kernel over tensors. Host tensors: like tkh_kernel_call, the inputs copied to
 * the device as they lie (each its span of memory, strides kept), the kernel walking the
 * plan of their shapes and strides, and every output element compared with the CPU
 * oracle walking the same plan under the context's policy; a mismatch names the
 * multi-index, the inputs' values and both results. Device tensors: enqueued on the
 * stream; with a device oracle policy other than off (tkh_context_set_device_oracle), the
 * call then waits for the stream, copies the inputs and outputs back and checks them the
 * same way. Dimensions that can be merged are; a call whose tensors are all compact and
 * of the same shape runs the flat kernels (tkh_kernel_call, tkh_kernel_enqueue). A tensor
 * of zero elements may have any data pointer, NULL included (torch exports them so): an
 * elementwise call, a normalization's map or a reduction without outputs over zero
 * elements is success without work; a reduction over zero elements per output gives its
 * identity (kernel->has_identity; sum 0, mean NaN), computed and checked like any other
 * result. An optional input (operand default_value not NULL) may be NULL: its default.
 * 'report' may be NULL; when given it is always filled, on failure too, with the plan in
 * its evidence (shapes, strides, the broadcast).
 * Fails with: TKH_ERR_NULL_POINTER, TKH_ERR_ARITY, TKH_ERR_INVALID_ARGUMENT (a dtype, device,
 * rank, shape, stride or axis that does not fit, naming the tensor, the value and what was
 * expected), TKH_ERR_EMPTY (a reduction without an identity, or a normalization's post
 * step, over zero elements), TKH_ERR_SIZE_OVERFLOW,
 * TKH_ERR_OVERLAP (an output that overlaps an input other than exactly, another output, or
 * itself), and every failure of tkh_kernel_call (host tensors) or tkh_kernel_enqueue
 * (device tensors; TKH_ERR_SYNC, TKH_ERR_COPY, TKH_ERR_ORACLE_MISMATCH under a device oracle
 * policy). The outputs are untouched when the call fails before the device work. */
TKH_API tkh_status tkh_tensor_call(tkh_context *ctx, const tkh_kernel_info *kernel,
    const tkh_tensor_args *args, tkh_report *report);

/* A tensor's shape: ndim sizes. */
typedef struct tkh_tensor_shape {
    int ndim;
    int64_t shape[TKH_MAX_DIMS];
} tkh_tensor_shape;

/* The shape tkh_tensor_call requires of each of the kernel's outputs, given the inputs,
 * axes and keepdims of 'args', into shapes[0 .. kernel->output_count): so that a caller
 * that makes the outputs (the Python package) takes their shapes from the planner itself
 * (broadcasting, reduced axes, a normalization's post step, numpy.matmul's rules) rather
 * than a copy of its rules. args has no outputs (output_count 0; 'outputs' is not read);
 * its scalars and stream are not read. No context: the inputs are checked as
 * tkh_tensor_call checks them, but for where they lie (data, device, alignment,
 * overlaps), which their shapes do not depend on.
 * Fails with: TKH_ERR_NULL_POINTER (kernel, args, inputs, shapes, a required input or
 * the axes), TKH_ERR_ARITY (input_count not the kernel's arity, or output_count not 0),
 * and with tkh_tensor_call's messages, named tkh_tensor_output_shapes:
 * TKH_ERR_INVALID_ARGUMENT (a dtype, rank, shape or axis that does not fit),
 * TKH_ERR_EMPTY (a reduction without an identity, or a normalization's post step, over
 * zero elements), TKH_ERR_SIZE_OVERFLOW; TKH_ERR_HOST_ALLOC. 'shapes' is untouched on
 * failure. */
TKH_API tkh_status tkh_tensor_output_shapes(const tkh_kernel_info *kernel, const tkh_tensor_args *args,
    tkh_tensor_shape *shapes);

/* The kernel of 'op' in 'registry' whose array operands' types are the dtypes of the
 * tensors in 'args' (inputs, then outputs), or NULL (also for NULL arguments and for
 * dtypes that are no type of ours). An optional input left out (NULL) matches any type;
 * a required one left out, nothing. */
TKH_API const tkh_kernel_info *tkh_registry_match(const tkh_registry *registry, const char *op,
    const tkh_tensor_args *args);

/* tkh_tensor_call with the kernel tkh_registry_match finds.
 * Fails with: TKH_ERR_NULL_POINTER, TKH_ERR_NOT_FOUND (no kernel of that op takes those
 * dtypes; the message lists the dtypes), and every failure of tkh_tensor_call. */
TKH_API tkh_status tkh_tensor_op(tkh_context *ctx, const tkh_registry *registry, const char *op,
    const tkh_tensor_args *args, tkh_report *report);

#ifdef __cplusplus
}
#endif

#endif
