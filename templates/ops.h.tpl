/* $(do_not_edit) */
/* Entry points of the '$(name)' catalog. Each host entry point copies the inputs to the
 * device, runs the kernel, copies the result back and compares every element with the
 * CPU oracle; it returns TKH_OK only when all match. Failure cases (tokitai_hip/status.h):
 * TKH_ERR_NULL_POINTER, TKH_ERR_EMPTY, TKH_ERR_SIZE_OVERFLOW, TKH_ERR_OVERLAP,
 * TKH_ERR_NO_KERNEL_FOR_ARCH, TKH_ERR_DEVICE_ALLOC, TKH_ERR_COPY, TKH_ERR_LAUNCH,
 * TKH_ERR_SYNC, TKH_ERR_HOST_ALLOC, TKH_ERR_ORACLE_MISMATCH; the outputs are untouched
 * unless the status is TKH_OK, TKH_ERR_ORACLE_MISMATCH or TKH_ERR_COPY of a result.
 * Arrays and scalars come in the order the op declares them, then the outputs. The _device entry points take device
 * buffers, enqueue the kernel on 'stream' and check nothing but their arguments (a
 * reduction's device entry point allocates and frees its partials, which synchronizes).
 * The _tensor entry points take DLPack tensors of any shape and strides, broadcast
 * (elementwise), reduced over 'axes' (reductions; NULL and 0 for every axis, an empty list for none) or
 * normalized along 'axis' (normalizations; negative counts from the end; a column
 * tensor is 1-D along it, NULL for its default), and fail as tkh_tensor_call does
 * (tokitai_hip/tensor.h). */
#ifndef $(guard)_OPS_H
#define $(guard)_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "tokitai_hip/kernel.h"
#include "tokitai_hip/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The registry of this catalog: every kernel below, for tkh_registry_find. */
TKH_API const tkh_registry *$(prefix)_registry_$(name)(void);

@ for _, k in ipairs(kernels) do
@   local note = k.op.shape == "reduction" and " (reduction: out is one element)"
@     or k.op.shape == "normalization" and (" (normalization along an axis; flat: the n elements are one row"
@       .. (#k.columns > 0 and ", a column NULL for its default" or "") .. (k.post and ", out is one element" or "") .. ")") or ""
@   if k.op.shape == "matmul" then
/* $(k.op.name) $(k.label) (matrix product: flat, $(k.inputs[1].param) is m x k, $(k.inputs[2].param) $(k.b_layout == "nk" and "n x k" or "k x n"), $(k.outputs[1].param) m x n, row-major$(#k.extras > 0 and ", a column n elements, a row m, an addend m x n, or NULL for its default" or "")): $(k.op.semantics) */
TKH_API tkh_status $(k.entry)(tkh_context *ctx, $(k.entry_params), size_t m, size_t n,
    size_t k, tkh_report *report);
TKH_API tkh_status $(k.device_entry)(tkh_context *ctx, $(k.entry_params), size_t m, size_t n,
    size_t k, tkh_stream stream);
TKH_API tkh_status $(k.tensor_entry)(tkh_context *ctx, $(k.tensor_params), tkh_stream stream,
    tkh_report *report);
@   else
/* $(k.op.name) $(k.label)$(note): $(k.op.semantics) */
TKH_API tkh_status $(k.entry)(tkh_context *ctx, $(k.entry_params), size_t n,
    tkh_report *report);
TKH_API tkh_status $(k.device_entry)(tkh_context *ctx, $(k.entry_params), size_t n,
    tkh_stream stream);
@   if k.op.shape == "reduction" then
TKH_API tkh_status $(k.tensor_entry)(tkh_context *ctx, $(k.tensor_params), const int64_t *axes,
    unsigned axis_count, int keepdims, tkh_stream stream, tkh_report *report);
@   elseif k.op.shape == "normalization" then
TKH_API tkh_status $(k.tensor_entry)(tkh_context *ctx, $(k.tensor_params), int64_t axis,
@     if k.post then
    int keepdims, tkh_stream stream, tkh_report *report);
@     else
    tkh_stream stream, tkh_report *report);
@     end
@   else
TKH_API tkh_status $(k.tensor_entry)(tkh_context *ctx, $(k.tensor_params), tkh_stream stream,
    tkh_report *report);
@   end
@   end

@ end
#ifdef __cplusplus
}
#endif

#endif
