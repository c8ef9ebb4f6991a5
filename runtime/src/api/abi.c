/* The layout of the public structs, for bindings that copy them (the Python package's
 * ctypes mirrors compare themselves with it at import): a struct that changes on one side
 * only then fails loudly instead of corrupting memory. */
#include <stddef.h>
#include <string.h>

#include "base/base.h"
#include "tokitai_hip/tokitai_hip.h"

#define SIZE(s) { #s, sizeof(s) }
#define AT(s, f) { #s "." #f, offsetof(s, f) }

/* Every struct a binding mirrors, and the fields after which a change would move the rest
 * (each struct's last field among them). */
static const struct {
    const char *name;
    size_t value;
} layout[] = {
    SIZE(DLTensor), AT(DLTensor, ndim), AT(DLTensor, dtype), AT(DLTensor, shape), AT(DLTensor, byte_offset),
    SIZE(DLManagedTensor), AT(DLManagedTensor, manager_ctx), AT(DLManagedTensor, deleter),
    SIZE(tkh_operand), AT(tkh_operand, size), AT(tkh_operand, ulp_bound), AT(tkh_operand, extent),
    SIZE(tkh_kernel_info), AT(tkh_kernel_info, shape_kind), AT(tkh_kernel_info, out_count),
    AT(tkh_kernel_info, ulp_bound), AT(tkh_kernel_info, targets), AT(tkh_kernel_info, launch),
    AT(tkh_kernel_info, b_nk), AT(tkh_kernel_info, accumulator), AT(tkh_kernel_info, project_device),
    AT(tkh_kernel_info, nearest), AT(tkh_kernel_info, copies),
    SIZE(tkh_registry), AT(tkh_registry, count),
    SIZE(tkh_tensor_args), AT(tkh_tensor_args, output_count), AT(tkh_tensor_args, axes),
    AT(tkh_tensor_args, keepdims), AT(tkh_tensor_args, stream),
    SIZE(tkh_tensor_shape), AT(tkh_tensor_shape, shape),
    SIZE(tkh_scalar_type), AT(tkh_scalar_type, dlpack_code), AT(tkh_scalar_type, size), AT(tkh_scalar_type, min),
    AT(tkh_scalar_type, mantissa), AT(tkh_scalar_type, parse), AT(tkh_scalar_type, from_double),
    SIZE(tkh_oracle_policy), AT(tkh_oracle_policy, samples), AT(tkh_oracle_policy, seed),
    SIZE(tkh_device_report), AT(tkh_device_report, device_count), AT(tkh_device_report, global_memory),
    AT(tkh_device_report, fingerprint), AT(tkh_device_report, pci_bus_id),
    SIZE(tkh_report), AT(tkh_report, kernel), AT(tkh_report, device), AT(tkh_report, len),
    AT(tkh_report, oracle_seed), AT(tkh_report, seconds), AT(tkh_report, evidence),
};

tkh_status tkh_abi_layout(const char *name, size_t *value)
{
    tkhi_clear_error();
    if (name == NULL || value == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "tkh_abi_layout: %s is NULL", name == NULL ? "name" : "value");
    for (size_t i = 0; i < sizeof layout / sizeof layout[0]; ++i)
        if (strcmp(layout[i].name, name) == 0) {
            *value = layout[i].value;
            return TKH_OK;
        }
    return tkhi_fail(TKH_ERR_NOT_FOUND, "tkh_abi_layout: '%.64s' is in no table of this library: expected a "
        "public struct's name (\"tkh_report\") or one of its fields (\"tkh_report.evidence\") that it lists",
        name);
}
