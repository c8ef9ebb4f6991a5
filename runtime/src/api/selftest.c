/* tkh_registry_selftest: every kernel of a registry, oracle-checked on random inputs with
 * edge values (a matrix product: finite operands, m x k by k x n for about n outputs), for
 * release gates, the generated GPU tests and 'tokitai-hip selftest'. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paths/paths.h"

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

/* Random bits (bool: 0 or 1, the values a bool holds) for 'count' values of x's type. */
static void fill_random(const tkh_operand *x, unsigned char *v, size_t count, uint64_t *s)
{
    const size_t bytes = count * x->size;
    for (size_t i = 0; i < bytes; i += 8) {
        uint64_t r = tkhi_splitmix64(s);
        memcpy(v + i, &r, bytes - i < 8 ? bytes - i : 8);
    }
    if (strcmp(x->type, "bool") == 0)
        for (size_t i = 0; i < count; ++i)
            v[i] &= 1;
}

/* Values in [-1, 1), each rounded once to x's type: a bounded sum is only meaningful
 * over finite inputs. (Bounded sums are of floats; random bits for any other type.) */
static void fill_moderate(const tkh_operand *x, unsigned char *in, size_t n, uint64_t *s)
{
    const tkh_scalar_type *t = tkh_scalar_type_find(x->type);
    if (t == NULL || t->from_double == NULL) {
        fill_random(x, in, n, s);
        return;
    }
    for (size_t i = 0; i < n; ++i)
        t->from_double((double)(tkhi_splitmix64(s) >> 11) * 0x1p-52 - 1.0, in + i * x->size);
}

static void fill_inputs(const tkh_kernel_info *k, unsigned char **in, unsigned char *scalars, size_t n,
    uint64_t *s)
{
    const int moderate = strcmp(k->compare_rule, "sum_bound") == 0;
    for (unsigned a = 0; a < k->arity; ++a) {
        if (moderate)
            fill_moderate(&k->inputs[a], in[a], n, s);
        else
            fill_random(&k->inputs[a], in[a], n, s);
    }
    for (unsigned j = 0; j < k->scalar_count; ++j)
        fill_random(&k->scalars[j], scalars + 8 * j, 1, s);
    if (moderate)
        return;
    size_t combos = 1;
    for (unsigned a = 0; a < k->arity && combos < n; ++a)
        combos *= 5;
    for (size_t i = 0; i < combos && i < n; ++i)
        for (unsigned a = 0, rest = (unsigned)i; a < k->arity; ++a, rest /= 5) {
            const size_t size = k->inputs[a].size;
            if (strcmp(k->inputs[a].type, "bool") == 0)
                in[a][i] = rest % 2;
            else
                edge(in[a] + i * size, size, rest % 5);
        }
}

/* A matrix product's sizes for a run of about n outputs: m rows (up to 37), n / m columns,
 * and a depth k that varies with n, none of them a multiple of a tile. */
static void product_sizes(size_t n, size_t *m, size_t *cols, size_t *depth)
{
    *m = n < 37 ? n : 37;
    *cols = n / *m;
    *depth = 1 + n % 97;
}

/* The elements of a product's extra input: a column's n, a row's m, an addend's m x n. */
static size_t extra_count(const tkh_operand *x, size_t m, size_t cols)
{
    const char *e = tkhi_extent_of(x);
    return strcmp(e, "m") == 0 ? m : strcmp(e, "mn") == 0 ? m * cols : cols;
}

static tkh_status run_one(tkh_context *ctx, const tkh_kernel_info *k, size_t n, uint64_t seed,
    tkh_selftest_result *result)
{
    unsigned char *in[TKH_MAX_INPUTS] = { NULL }, *out[TKH_MAX_OUTPUTS] = { NULL };
    unsigned char scalars[8 * TKH_MAX_SCALARS] = { 0 };
    const int product = k->check_product != NULL;
    size_t m = 0, cols = 0, depth = 0, count[TKH_MAX_INPUTS];
    if (product)
        product_sizes(n, &m, &cols, &depth);
    const size_t outputs = product ? m * cols : k->out_count ? k->out_count : n;
    int ok = k->arity <= TKH_MAX_INPUTS && k->output_count <= TKH_MAX_OUTPUTS && k->scalar_count <= TKH_MAX_SCALARS;
    for (unsigned a = 0; ok && a < k->arity; ++a) {
        count[a] = !product ? n : a == 0 ? m * depth : a == 1 ? depth * cols : extra_count(&k->inputs[a], m, cols);
        ok = (in[a] = malloc(count[a] * k->inputs[a].size)) != NULL;
    }
    for (unsigned o = 0; ok && o < k->output_count; ++o)
        ok = (out[o] = malloc(outputs * k->outputs[o].size)) != NULL;
    tkh_status st;
    if (!ok) {
        st = tkhi_fail(TKH_ERR_HOST_ALLOC, "selftest: allocating buffers of %zu elements for %s_%s failed",
            n, k->op, k->type);
    } else {
        uint64_t s = seed ^ (n * 0x100000001B3ull);
        if (product) /* finite operands: a sum's bound is meaningful over them (random bits for integers) */
        {
            for (unsigned a = 0; a < k->arity; ++a)
                fill_moderate(&k->inputs[a], in[a], count[a], &s);
            for (unsigned j = 0; j < k->scalar_count; ++j)
                fill_moderate(&k->scalars[j], scalars + 8 * j, 1, &s);
        } else
            fill_inputs(k, in, scalars, n, &s);
        const void *inputs[TKH_MAX_INPUTS], *scalar_ptrs[TKH_MAX_SCALARS];
        void *outs[TKH_MAX_OUTPUTS];
        for (unsigned a = 0; a < k->arity; ++a)
            inputs[a] = in[a];
        for (unsigned o = 0; o < k->output_count; ++o) {
            memset(out[o], POISON, outputs * k->outputs[o].size);
            outs[o] = out[o];
        }
        for (unsigned j = 0; j < k->scalar_count; ++j)
            scalar_ptrs[j] = scalars + 8 * j;
        const tkh_args args = { inputs, k->arity, outs, k->output_count, scalar_ptrs, k->scalar_count };
        st = product ? tkhi_product_call("tkh_product_call", ctx, k, &args, m, cols, depth, 0, NULL, NULL, 0)
                     : tkhi_flat_call("tkh_kernel_call", ctx, k, &args, n, 0, NULL, NULL, 0);
    }
    ++result->runs;
    if (st == TKH_OK)
        ++result->passed;
    else
        snprintf(result->failure, sizeof result->failure, "%s_%s n=%zu seed=%llu: %s: %s", k->op,
            k->type, n, (unsigned long long)seed, tkh_status_name(st), tkh_last_error());
    for (unsigned a = 0; a < TKH_MAX_INPUTS; ++a)
        free(in[a]);
    for (unsigned o = 0; o < TKH_MAX_OUTPUTS; ++o)
        free(out[o]);
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
