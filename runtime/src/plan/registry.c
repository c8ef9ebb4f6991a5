/* Registry lookup and admission: is a kernel built for this device? */
#include <stdio.h>
#include <string.h>

#include "plan.h"

const tkh_kernel_info *tkh_registry_find(const tkh_registry *registry, const char *op,
    const char *type)
{
    if (registry == NULL || op == NULL || type == NULL)
        return NULL;
    for (size_t i = 0; i < registry->count; ++i) {
        const tkh_kernel_info *k = registry->kernels[i];
        if (strcmp(k->op, op) == 0 && strcmp(k->type, type) == 0)
            return k;
    }
    return NULL;
}

/* Does 'feature' ("xnack-") contradict the device's arch string ("gfx90a:sramecc+:xnack+")?
 * A feature the device does not report cannot contradict it. */
static int feature_conflicts(const char *feature, size_t len, const char *device_arch)
{
    if (len < 2)
        return 1;
    const char *p = device_arch;
    while ((p = strchr(p, ':')) != NULL) {
        ++p;
        if (strncmp(p, feature, len - 1) == 0) {
            char sign = p[len - 1];
            if (sign == '+' || sign == '-')
                return sign != feature[len - 1];
        }
    }
    return 0;
}

static int target_admits(const char *target, const char *arch)
{
    size_t proc_len = strcspn(target, ":");
    /* NVIDIA's architecture-specific code (sm_90a: wgmma, TMA) runs on that chip alone (which
     * the device query names sm_90); the target's own name is admitted too, as every target's is */
    if (strncmp(target, "sm_", 3) == 0 && proc_len > 3 && target[proc_len - 1] == 'a')
        return strcmp(target, arch) == 0
            || (strncmp(target, arch, proc_len - 1) == 0 && arch[proc_len - 1] == '\0');
    if (strncmp(target, arch, proc_len) != 0 || (arch[proc_len] != ':' && arch[proc_len] != '\0'))
        return 0;
    const char *f = target + proc_len;
    while (*f == ':') {
        ++f;
        size_t len = strcspn(f, ":");
        if (feature_conflicts(f, len, arch))
            return 0;
        f += len;
    }
    return 1;
}

/* Admission without the entry point's work: TKH_OK, or the failure naming both. */
static tkh_status admit(const tkh_kernel_info *kernel, const char *arch)
{
    char list[256] = "";
    size_t used = 0;
    for (const char *const *t = kernel->targets; *t != NULL; ++t) {
        if (target_admits(*t, arch))
            return TKH_OK;
        int n = snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", *t);
        if (n > 0 && (size_t)n < sizeof list - used)
            used += (size_t)n;
    }
    return tkhi_fail(TKH_ERR_NO_KERNEL_FOR_ARCH,
        "kernel %s_%s (%s) was built for [%s] but the device is %s: rebuild with "
        "GPU_TARGETS including it", kernel->op, kernel->type, kernel->platform,
        list, arch);
}

tkh_status tkh_kernel_admit(const tkh_kernel_info *kernel, const char *arch)
{
    tkhi_clear_error();
    if (kernel == NULL || arch == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "tkh_kernel_admit: %s is NULL",
            kernel == NULL ? "kernel" : "arch");
    return admit(kernel, arch);
}

tkh_status tkhi_admit(tkh_context *ctx, const tkh_kernel_info *kernel)
{
    /* A context's device never changes: the kernel admitted last needs no second look
     * (the target strings' comparison was a fifth of a flat enqueue's host work). */
    if (atomic_load_explicit(&ctx->admitted, memory_order_relaxed) == kernel)
        return TKH_OK;
    const tkh_status st = admit(kernel, ctx->device.arch);
    if (st == TKH_OK)
        atomic_store_explicit(&ctx->admitted, kernel, memory_order_relaxed);
    return st;
}

/* Tensor t's dtype is our type 'type'. */
static int dtype_is(const DLTensor *t, const char *type)
{
    const char *ours = tkhi_dtype_type(t->dtype);
    return ours != NULL && strcmp(ours, type) == 0;
}
const tkh_kernel_info *tkh_registry_match(const tkh_registry *registry, const char *op,
    const tkh_tensor_args *args)
{
    if (registry == NULL || op == NULL || args == NULL || args->inputs == NULL || args->outputs == NULL)
        return NULL;
    for (size_t i = 0; i < registry->count; ++i) {
        const tkh_kernel_info *k = registry->kernels[i];
        if (strcmp(k->op, op) != 0 || k->arity != args->input_count || k->output_count != args->output_count)
            continue;
        int fits = 1;
        for (unsigned a = 0; a < k->arity && fits; ++a) /* an absent optional input fits any type */
            fits = args->inputs[a] != NULL ? dtype_is(args->inputs[a], k->inputs[a].type)
                : k->inputs[a].default_value != NULL;
        for (unsigned o = 0; o < k->output_count && fits; ++o)
            fits = args->outputs[o] != NULL && dtype_is(args->outputs[o], k->outputs[o].type);
        if (fits)
            return k;
    }
    return NULL;
}
