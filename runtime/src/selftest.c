/* tkh_registry_selftest: every kernel of a registry, oracle-checked on random inputs with
 * edge values, for release gates, the generated GPU tests and 'tokitai-hip selftest'. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "tokitai_hip/scalar.h"

#define POISON 0xA5

/* Edge bit patterns of any width: 0, all ones (-1, max, NaN), the sign bit alone (MIN,
 * -0), all but the sign bit (MAX, NaN), 1 (the smallest subnormal). */
static void edge(unsigned char *elem, size_t size, unsigned which)
{
    memset(elem, which == 1 || which == 3 ? 0xFF : 0x00, size);
    if (which == 2)
        elem[size - 1] = 0x80;
    if (which == 3)
        elem[size - 1] = 0x7F;
    if (which == 4)
        elem[0] = 1;
}

/* Values in [-1, 1): a bounded sum is only meaningful over finite inputs. */
static void fill_moderate(const tkh_kernel_info *k, unsigned char *in, size_t n, uint64_t *s)
{
    for (size_t i = 0; i < n; ++i) {
        double v = (double)(tkhi_splitmix64(s) >> 11) * 0x1p-52 - 1.0;
        float f = (float)v;
        uint16_t h = strcmp(k->type, "f16") == 0 ? tkh_f32_to_f16(f) : tkh_f32_to_bf16(f);
        if (k->elem_size == 8)
            memcpy(in + i * 8, &v, 8);
        else if (k->elem_size == 4)
            memcpy(in + i * 4, &f, 4);
        else
            memcpy(in + i * 2, &h, 2);
    }
}

static void fill_inputs(const tkh_kernel_info *k, unsigned char **in, size_t n, uint64_t *s)
{
    const size_t bytes = n * k->elem_size;
    for (unsigned a = 0; a < k->arity; ++a) {
        if (strcmp(k->compare_rule, "sum_bound") == 0) {
            fill_moderate(k, in[a], n, s);
            continue;
        }
        for (size_t i = 0; i < bytes; i += 8) {
            uint64_t r = tkhi_splitmix64(s);
            memcpy(in[a] + i, &r, bytes - i < 8 ? bytes - i : 8);
        }
    }
    if (strcmp(k->compare_rule, "sum_bound") == 0)
        return;
    size_t combos = 1;
    for (unsigned a = 0; a < k->arity; ++a)
        combos *= 5;
    for (size_t i = 0; i < combos && i < n; ++i)
        for (unsigned a = 0, rest = (unsigned)i; a < k->arity; ++a, rest /= 5)
            edge(in[a] + i * k->elem_size, k->elem_size, rest % 5);
}

static tkh_status run_one(tkh_context *ctx, const tkh_kernel_info *k, size_t n, uint64_t seed,
    tkh_selftest_result *result)
{
    unsigned char *in[3] = { NULL, NULL, NULL };
    const size_t bytes = n * k->elem_size;
    const size_t out_bytes = (k->out_count ? k->out_count : n) * k->elem_size;
    unsigned char *out = malloc(out_bytes);
    int ok = out != NULL && k->arity <= 3;
    for (unsigned a = 0; ok && a < k->arity; ++a)
        ok = (in[a] = malloc(bytes)) != NULL;
    tkh_status st;
    if (!ok) {
        st = tkhi_fail(TKH_ERR_HOST_ALLOC, "selftest: allocating %zu-byte buffers for %s_%s failed",
            bytes, k->op, k->type);
    } else {
        uint64_t s = seed ^ (n * 0x100000001B3ull);
        fill_inputs(k, in, n, &s);
        memset(out, POISON, out_bytes);
        const void *inputs[3] = { in[0], in[1], in[2] };
        st = tkh_kernel_run(ctx, k, inputs, k->arity, out, n, NULL);
    }
    ++result->runs;
    if (st == TKH_OK)
        ++result->passed;
    else
        snprintf(result->failure, sizeof result->failure, "%s_%s n=%zu seed=%llu: %s: %s", k->op,
            k->type, n, (unsigned long long)seed, tkh_status_name(st), tkh_last_error());
    for (unsigned a = 0; a < 3; ++a)
        free(in[a]);
    free(out);
    return st;
}

tkh_status tkh_registry_selftest(tkh_context *ctx, const tkh_registry *registry,
    const size_t *sizes, size_t size_count, unsigned long long seed, tkh_selftest_result *result)
{
    tkhi_clear_error();
    if (result == NULL || registry == NULL || sizes == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "tkh_registry_selftest: %s is NULL",
            result == NULL ? "result" : registry == NULL ? "registry" : "sizes");
    memset(result, 0, sizeof *result);
    if (size_count == 0)
        return tkhi_fail(TKH_ERR_EMPTY, "tkh_registry_selftest: no sizes given");
    for (size_t j = 0; j < size_count; ++j) {
        if (sizes[j] == 0)
            return tkhi_fail(TKH_ERR_EMPTY, "tkh_registry_selftest: sizes[%zu] is 0", j);
        if (sizes[j] > SIZE_MAX / 8)
            return tkhi_fail(TKH_ERR_SIZE_OVERFLOW,
                "tkh_registry_selftest: sizes[%zu] = %zu overflows the buffer size (at most %zu)",
                j, sizes[j], SIZE_MAX / 8);
    }
    for (size_t i = 0; i < registry->count; ++i)
        for (size_t j = 0; j < size_count; ++j) {
            tkh_status st = run_one(ctx, registry->kernels[i], sizes[j], seed, result);
            if (st != TKH_OK) {
                tkhi_fail(st, "%s", result->failure);
                return st;
            }
        }
    return TKH_OK;
}
