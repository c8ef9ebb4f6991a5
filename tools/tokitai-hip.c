/* tokitai-hip: the device report, the kernel registry, and oracle-checked runs.
 * Messages read 'tokitai-hip: what went wrong'; exit 0 on success, 1 on a failed run or
 * an unusable device, 2 on bad usage. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accuracy.h"
#include "random.h"
#include "bench.h"
#include "tensors.h"
#include "tokitai_hip/tokitai_hip.h"

static const char *const USAGE =
    "usage: tokitai-hip info [--device N] [--format md|json]\n"
    "       tokitai-hip list [--format text|json]\n"
    "       tokitai-hip run OP TYPE --n N [--seed S] [--oracle full|off|sampled:K|projected]\n"
    "                                     [--device N] [--format md|json]   (sampled: K outputs, seed S)\n"
    "       tokitai-hip run OP TYPE --shape D,D... [--shape ...] [--transpose I] [--axes A,A...]\n"
    "                                     [--keepdims] [...]   (host tensors: one --shape per input,\n"
    "                                     or one for all; input I stored transposed; reductions;\n"
    "                                     normalizations: one axis, the last by default, and their\n"
    "                                     columns as long as it unless given a --shape each)\n"
    "       tokitai-hip run ... --scalar NAME=VALUE [--scalar ...]   (a scalar's value, else random\n"
    "                                     bits: --scalar eps=1e-5; bool 0, 1, true or false)\n"
    "       tokitai-hip selftest [--n N] [--seed S] [--device N]\n"
    "       tokitai-hip bench OPS TYPES [--sizes N,N...] [--reps R] [--oracle full|off|sampled:K]\n"
    "                                   [--device N]   (lists: add,sub; --oracle: the host path's)\n"
    "       tokitai-hip bench OPS TYPES --shape D,D... [--shape ...] [--transpose I] [--axes A,A...]\n"
    "                                   [--keepdims] [--reps R] [--oracle ...] [--seed S] [--device N]\n"
    "                                   (device tensors, as run takes them; --oracle: one call first)\n"
    "       tokitai-hip accuracy OPS|all TYPES|all [--n SAMPLES] [--seed S] [--device N]\n"
    "                                   (kernels under the ulp rule; unary f16/bf16/f32: every input)\n"
    "       tokitai-hip version\n";

static int usage_error(const char *fmt, const char *value)
{
    fprintf(stderr, "tokitai-hip: ");
    fprintf(stderr, fmt, value);
    fprintf(stderr, "\n%s", USAGE);
    return 2;
}

typedef struct options {
    const char *format;
    const char *sizes;
    const char *oracle;
    int reps;
    int device;
    size_t n;
    int have_n;
    uint64_t seed;
    int have_seed;
    const char *positional[2];
    int positional_count;
    const char *shapes[TKH_MAX_INPUTS]; /* run over tensors */
    unsigned shape_count, transposed;
    const char *axes;
    int keepdims;
    const char *scalars[TKH_MAX_SCALARS]; /* --scalar NAME=VALUE */
    unsigned scalar_count;
} options;

static int parse_u64(const char *text, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    if (text[0] == '-' || text[0] == '\0')
        return 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno != 0 || *end != '\0')
        return 0;
    *out = v;
    return 1;
}

static int parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->device = TKH_DEVICE_FROM_ENV;
    for (int i = 2; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        uint64_t u = 0;
        if (strcmp(a, "--format") == 0 || strcmp(a, "--device") == 0 || strcmp(a, "--n") == 0
            || strcmp(a, "--seed") == 0 || strcmp(a, "--sizes") == 0 || strcmp(a, "--reps") == 0
            || strcmp(a, "--oracle") == 0) {
            if (v == NULL)
                return usage_error("option %s needs a value", a);
            ++i;
            if (strcmp(a, "--format") == 0 || strcmp(a, "--sizes") == 0 || strcmp(a, "--oracle") == 0) {
                *(strcmp(a, "--format") == 0 ? &o->format : strcmp(a, "--sizes") == 0 ? &o->sizes : &o->oracle) = v;
                continue;
            }
            if (!parse_u64(v, &u))
                return usage_error("'%s' is not a non-negative integer", v);
            if (strcmp(a, "--reps") == 0) {
                if (u < 10 || u > 100000)
                    return usage_error("--reps %s is out of range (10..100000)", v);
                o->reps = (int)u;
            } else if (strcmp(a, "--device") == 0) {
                if (u > 1024)
                    return usage_error("--device %s is out of range (0..1024)", v);
                o->device = (int)u;
            } else if (strcmp(a, "--n") == 0) {
                if (u > SIZE_MAX)
                    return usage_error("--n %s does not fit in size_t", v);
                o->n = (size_t)u;
                o->have_n = 1;
            } else {
                o->seed = u;
                o->have_seed = 1;
            }
        } else if (strcmp(a, "--shape") == 0 || strcmp(a, "--axes") == 0 || strcmp(a, "--transpose") == 0) {
            if (v == NULL)
                return usage_error("option %s needs a value", a);
            ++i;
            if (strcmp(a, "--axes") == 0) {
                o->axes = v;
            } else if (strcmp(a, "--shape") == 0) {
                if (o->shape_count == TKH_MAX_INPUTS)
                    return usage_error("more --shape options than a kernel has inputs (%s)", v);
                o->shapes[o->shape_count++] = v;
            } else {
                if (!parse_u64(v, &u) || u >= TKH_MAX_INPUTS)
                    return usage_error("--transpose %s: expected an input's index (0..7)", v);
                o->transposed |= 1u << u;
            }
        } else if (strcmp(a, "--scalar") == 0) {
            if (v == NULL)
                return usage_error("option %s needs a value", a);
            ++i;
            if (o->scalar_count == TKH_MAX_SCALARS)
                return usage_error("more --scalar options than a kernel has scalars (%s)", v);
            o->scalars[o->scalar_count++] = v;
        } else if (strcmp(a, "--keepdims") == 0) {
            o->keepdims = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("unknown option '%s'", a);
        } else if (o->positional_count < 2) {
            o->positional[o->positional_count++] = a;
        } else {
            return usage_error("unexpected argument '%s'", a);
        }
    }
    return 0;
}

/* Writes a report through one of the library's formatters, growing the buffer once. */
typedef tkh_status (*format_fn)(const void *report, char *buf, size_t size, size_t *needed);

static int print_formatted(format_fn fn, const void *report)
{
    size_t needed = 0;
    char small[4096];
    tkh_status st = fn(report, small, sizeof small, &needed);
    if (st == TKH_OK) {
        fputs(small, stdout);
        return 0;
    }
    char *big = st == TKH_ERR_BUFFER_TOO_SMALL ? malloc(needed + 1) : NULL;
    if (big == NULL || fn(report, big, needed + 1, &needed) != TKH_OK) {
        fprintf(stderr, "tokitai-hip: formatting the report failed: %s\n", tkh_last_error());
        free(big);
        return 1;
    }
    fputs(big, stdout);
    free(big);
    return 0;
}

static int check_format(const char *format, const char *a, const char *b)
{
    return format == NULL || strcmp(format, a) == 0 || strcmp(format, b) == 0;
}

static int cmd_info(const options *o)
{
    if (!check_format(o->format, "md", "json"))
        return usage_error("--format must be md or json, got '%s'", o->format);
    tkh_device_report report;
    tkh_status st = tkh_device_query(o->device, &report);
    int json = o->format && strcmp(o->format, "json") == 0;
    int rc = print_formatted(json ? (format_fn)tkh_device_report_to_json
                                  : (format_fn)tkh_device_report_to_markdown, &report);
    if (st != TKH_OK) {
        fprintf(stderr, "tokitai-hip: no usable device (%s): %s\n", tkh_status_name(st), report.reason);
        return 1;
    }
    return rc;
}

static void print_list(const char *const *items, const char *sep)
{
    for (size_t i = 0; items[i] != NULL; ++i)
        printf("%s%s%s%s", i ? sep : "", *sep == ',' ? "\"" : "", items[i], *sep == ',' ? "\"" : "");
}

static int cmd_list(const options *o)
{
    if (!check_format(o->format, "text", "json"))
        return usage_error("--format must be text or json, got '%s'", o->format);
    const tkh_registry *reg = tkh_registry_core();
    int json = o->format && strcmp(o->format, "json") == 0;
    if (json)
        printf("{\"registry\": \"%s\", \"kernels\": [\n", reg->name);
    for (size_t i = 0; i < reg->count; ++i) {
        const tkh_kernel_info *k = reg->kernels[i];
        if (json) {
            printf("  {\"op\": \"%s\", \"type\": \"%s\", \"symbol\": \"%s\", \"platform\": \"%s\", "
                   "\"targets\": [", k->op, k->type, k->symbol, k->platform);
            print_list(k->targets, ", ");
            printf("], \"source_fingerprint\": \"%s\", \"compiler_fingerprint\": \"%s\", "
                   "\"build_fingerprint\": \"%s\"}%s\n", k->source_fingerprint,
                k->compiler_fingerprint, k->build_fingerprint, i + 1 < reg->count ? "," : "");
        } else {
            printf("%-8s %-5s %-16s %s [", k->op, k->type, k->symbol, k->platform);
            print_list(k->targets, " ");
            printf("]\n    source   %s\n    compiler %s\n    build    %s\n", k->source_fingerprint,
                k->compiler_fingerprint, k->build_fingerprint);
        }
    }
    if (json)
        printf("]}\n");
    return 0;
}

static void fill_random(unsigned char *buf, size_t bytes, uint64_t *state)
{
    for (size_t i = 0; i < bytes; i += 8) {
        uint64_t r = tkh_tool_random(state);
        size_t take = bytes - i < 8 ? bytes - i : 8;
        memcpy(buf + i, &r, take);
    }
}

/* --oracle full | off | sampled:K | projected (indices, signs from the run's seed). Returns
 * 0, or 2 after a usage message. */
static int parse_oracle(const options *o, uint64_t seed, tkh_oracle_policy *policy)
{
    *policy = (tkh_oracle_policy){ TKH_ORACLE_FULL, 0, seed };
    uint64_t k = 0;
    if (o->oracle == NULL || strcmp(o->oracle, "full") == 0)
        return 0;
    if (strcmp(o->oracle, "off") == 0 || strcmp(o->oracle, "projected") == 0) {
        policy->mode = o->oracle[0] == 'o' ? TKH_ORACLE_OFF : TKH_ORACLE_PROJECTED;
        return 0;
    }
    if (strncmp(o->oracle, "sampled:", 8) == 0 && parse_u64(o->oracle + 8, &k) && k > 0 && k <= SIZE_MAX) {
        policy->mode = TKH_ORACLE_SAMPLED;
        policy->samples = (size_t)k;
        return 0;
    }
    return usage_error("--oracle must be full, off, sampled:K (K >= 1) or projected, got '%s'", o->oracle);
}

/* Random bits for the kernel's scalars (bool: 0 or 1), and pointers to them. */
static void random_scalars(const tkh_kernel_info *k, unsigned char (*bytes)[8], const void **scalars,
    uint64_t *state)
{
    for (unsigned j = 0; j < k->scalar_count; ++j) {
        fill_random(bytes[j], sizeof bytes[j], state);
        if (strcmp(k->scalars[j].type, "bool") == 0)
            bytes[j][0] &= 1;
        scalars[j] = bytes[j];
    }
}

/* VALUE as scalar x's type into 'bytes' (tokitai_hip/scalar_types.h: strtod's forms for
 * floats, rounded once; integers in decimal, 0x hex or 0 octal; bool 0, 1, true or
 * false). Returns 0, or 2 after a usage error naming it. */
static int parse_scalar(const tkh_kernel_info *k, const tkh_operand *x, const char *given, const char *value,
    unsigned char *bytes)
{
    char msg[256];
    const tkh_scalar_type *t = tkh_scalar_type_find(x->type);
    const int rc = t != NULL ? t->parse(value, bytes) : TKH_SCALAR_NOT_A_VALUE;
    if (rc == TKH_SCALAR_PARSED)
        return 0;
    if (rc == TKH_SCALAR_OUT_OF_RANGE)
        snprintf(msg, sizeof msg, "--scalar '%s': %s is out of range for %s (%" PRId64 " to %" PRIu64 ")", given,
            value, x->type, t->min, t->max);
    else
        snprintf(msg, sizeof msg, "--scalar '%s': '%s' is not a %s value (%s_%s's scalar %s)", given, value,
            x->type, k->op, k->type, x->name);
    return usage_error("%s", msg);
}

/* The kernel's scalars: those --scalar names, the others random bits (bool: 0 or 1); and
 * pointers to them. Returns 0, or 2 after a usage error. */
static int run_scalars(const options *o, const tkh_kernel_info *k, unsigned char (*bytes)[8], const void **scalars,
    uint64_t *state)
{
    random_scalars(k, bytes, scalars, state);
    for (unsigned g = 0; g < o->scalar_count; ++g) {
        const char *given = o->scalars[g], *eq = strchr(given, '=');
        char names[128] = "", msg[320];
        unsigned j = 0;
        while (eq != NULL && j < k->scalar_count
            && (strlen(k->scalars[j].name) != (size_t)(eq - given)
                || strncmp(k->scalars[j].name, given, (size_t)(eq - given)) != 0))
            ++j;
        if (eq == NULL || j == k->scalar_count) {
            for (unsigned i = 0; i < k->scalar_count; ++i)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                    k->scalars[i].name);
            snprintf(msg, sizeof msg, eq == NULL ? "--scalar '%s': expected NAME=VALUE (%s_%s's scalars: %s)"
                : "--scalar '%s' names no scalar of %s_%s (its scalars: %s)", given, k->op, k->type,
                k->scalar_count ? names : "none");
            return usage_error("%s", msg);
        }
        if (parse_scalar(k, &k->scalars[j], given, eq + 1, bytes[j]) != 0)
            return 2;
    }
    return 0;
}

/* run over host tensors (--shape). */
static int run_tensors(const options *o, const tkh_kernel_info *k, const tkh_oracle_policy *policy, uint64_t seed)
{
    uint64_t state = seed;
    tool_tensors t;
    int rc = tool_tensors_make(&t, k, o->shapes, o->shape_count, o->transposed, o->axes, o->keepdims, &state);
    if (rc != 0) {
        tool_tensors_free(&t);
        return rc;
    }
    unsigned char scalar_bytes[TKH_MAX_SCALARS][8];
    const void *scalars[TKH_MAX_SCALARS];
    if (run_scalars(o, k, scalar_bytes, scalars, &state) != 0) {
        tool_tensors_free(&t);
        return 2;
    }
    fprintf(stderr, "tokitai-hip: run %s %s over tensors, seed = %" PRIu64 "\n", k->op, k->type, seed);
    tkh_context *ctx = NULL;
    tkh_report report;
    tkh_status st = tkh_context_create(&ctx, o->device);
    if (st == TKH_OK)
        st = tkh_context_set_oracle(ctx, policy);
    if (st == TKH_OK) {
        const tkh_tensor_args args = { t.in, k->arity, t.out, k->output_count, scalars, k->scalar_count,
            t.axis_count ? t.axes : NULL, t.axis_count, o->keepdims, NULL };
        st = tkh_tensor_call(ctx, k, &args, &report);
        const int json = o->format && strcmp(o->format, "json") == 0;
        print_formatted(json ? (format_fn)tkh_report_to_json : (format_fn)tkh_report_to_markdown, &report);
    }
    if (st != TKH_OK)
        fprintf(stderr, "tokitai-hip: %s: %s\n", tkh_status_name(st), tkh_last_error());
    tkh_context_destroy(ctx);
    tool_tensors_free(&t);
    return st == TKH_OK ? 0 : 1;
}

static int cmd_run(const options *o)
{
    if (o->positional_count != 2)
        return usage_error("run needs OP and TYPE%s", "");
    if (!o->have_n && o->shape_count == 0)
        return usage_error("run needs --n N or --shape%s", "");
    if (o->have_n && o->shape_count > 0)
        return usage_error("run takes --n N or --shape, not both%s", "");
    if (!check_format(o->format, "md", "json"))
        return usage_error("--format must be md or json, got '%s'", o->format);
    const tkh_kernel_info *k = tkh_registry_find(tkh_registry_core(), o->positional[0], o->positional[1]);
    if (k == NULL) {
        fprintf(stderr, "tokitai-hip: no kernel for op '%s' and type '%s' (see tokitai-hip list)\n",
            o->positional[0], o->positional[1]);
        return 1;
    }
    if (o->shape_count > 0) {
        tkh_oracle_policy policy;
        const uint64_t seed = o->have_seed ? o->seed : 1;
        return parse_oracle(o, seed, &policy) != 0 ? 2 : run_tensors(o, k, &policy, seed);
    }
    size_t widest = 1;
    for (unsigned a = 0; a < k->arity; ++a)
        widest = k->inputs[a].size > widest ? k->inputs[a].size : widest;
    for (unsigned j = 0; j < k->output_count; ++j)
        widest = k->outputs[j].size > widest ? k->outputs[j].size : widest;
    const size_t arrays = k->arity + k->output_count;
    if (o->n == 0 || o->n > SIZE_MAX / widest / arrays) {
        fprintf(stderr, "tokitai-hip: --n %zu is out of range: expected 1..%zu\n", o->n,
            SIZE_MAX / widest / arrays);
        return 2;
    }
    uint64_t seed = o->have_seed ? o->seed : 1;
    tkh_oracle_policy policy;
    if (parse_oracle(o, seed, &policy) != 0)
        return 2;
    uint64_t state = seed;
    /* The inputs, then the outputs; random bits (bool: 0 or 1), and so the scalars. */
    void *buffers[TKH_MAX_INPUTS + TKH_MAX_OUTPUTS] = { NULL };
    unsigned char scalar_bytes[TKH_MAX_SCALARS][8];
    const void *scalars[TKH_MAX_SCALARS];
    int ok = 1;
    for (unsigned i = 0; i < arrays && ok; ++i) {
        const tkh_operand *x = i < k->arity ? &k->inputs[i] : &k->outputs[i - k->arity];
        const size_t bytes = (i < k->arity || k->out_count == 0 ? o->n : k->out_count) * x->size;
        if ((buffers[i] = malloc(bytes)) == NULL) {
            fprintf(stderr, "tokitai-hip: allocating %zu bytes of host memory failed\n", bytes);
            ok = 0;
        } else if (i < k->arity) {
            fill_random(buffers[i], bytes, &state);
            if (strcmp(x->type, "bool") == 0)
                for (size_t e = 0; e < bytes; ++e)
                    ((unsigned char *)buffers[i])[e] &= 1;
        }
    }
    if (ok && run_scalars(o, k, scalar_bytes, scalars, &state) != 0) {
        for (unsigned i = 0; i < arrays; ++i)
            free(buffers[i]);
        return 2;
    }
    tkh_status st = TKH_ERR_HOST_ALLOC;
    tkh_context *ctx = NULL;
    if (ok) {
        fprintf(stderr, "tokitai-hip: run %s %s, n = %zu, seed = %" PRIu64 "\n", k->op, k->type, o->n, seed);
        tkh_report report;
        st = tkh_context_create(&ctx, o->device);
        if (st == TKH_OK)
            st = tkh_context_set_oracle(ctx, &policy);
        if (st == TKH_OK) {
            const tkh_args args = { (const void *const *)buffers, k->arity, buffers + k->arity,
                k->output_count, scalars, k->scalar_count };
            st = tkh_kernel_call(ctx, k, &args, o->n, &report);
            int json = o->format && strcmp(o->format, "json") == 0;
            print_formatted(json ? (format_fn)tkh_report_to_json : (format_fn)tkh_report_to_markdown, &report);
        }
        if (st != TKH_OK)
            fprintf(stderr, "tokitai-hip: %s: %s\n", tkh_status_name(st), tkh_last_error());
    }
    tkh_context_destroy(ctx);
    for (unsigned i = 0; i < arrays; ++i)
        free(buffers[i]);
    return st == TKH_OK ? 0 : 1;
}

/* Every core kernel, oracle-checked at small odd sizes (and --n N when given). */
static int cmd_selftest(const options *o)
{
    size_t sizes[6] = { 1, 3, 255, 256, 257, 0 };
    size_t count = 5;
    if (o->have_n)
        sizes[count++] = o->n;
    uint64_t seed = o->have_seed ? o->seed : 1;
    tkh_context *ctx = NULL;
    tkh_status st = tkh_context_create(&ctx, o->device);
    tkh_selftest_result result = { 0, 0, "" };
    if (st == TKH_OK)
        st = tkh_registry_selftest(ctx, tkh_registry_core(), sizes, count, seed, &result);
    if (st == TKH_OK || result.runs > 0)
        printf("selftest: %zu of %zu oracle-checked runs passed (seed %" PRIu64 ")\n", result.passed,
            result.runs, seed);
    if (st != TKH_OK)
        fprintf(stderr, "tokitai-hip: %s: %s\n", tkh_status_name(st), tkh_last_error());
    tkh_context_destroy(ctx);
    return st == TKH_OK ? 0 : 1;
}

/* Calls fn(item) for each item of a comma-separated list; stops at the first non-zero. */
static int each_item(const char *list, int (*fn)(const char *item, void *arg), void *arg)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        int rc = fn(item, arg);
        if (rc != 0)
            return rc;
    }
    return 0;
}

typedef struct bench_run {
    const options *o;
    tkh_context *ctx;
    const char *op;
    const char *type;
    int first;
    int dry;                        /* --shape: only check every case's shapes */
    const tkh_oracle_policy *check; /* --shape: the checked call before the timing */
} bench_run;

static int bench_size(const char *item, void *arg)
{
    bench_run *b = arg;
    uint64_t n = 0;
    if (!parse_u64(item, &n) || n == 0 || n > ((uint64_t)1 << 33))
        return usage_error("size '%s' is out of range (1..2^33)", item);
    const tkh_kernel_info *k = tkh_registry_find(tkh_registry_core(), b->op, b->type);
    int rc = tkh_bench_case(b->ctx, k, (size_t)n, b->o->reps ? b->o->reps : 100, b->first);
    b->first = 0;
    return rc;
}

static int bench_type(const char *item, void *arg)
{
    bench_run *b = arg;
    const options *o = b->o;
    b->type = item;
    const tkh_kernel_info *k = tkh_registry_find(tkh_registry_core(), b->op, b->type);
    if (k == NULL) {
        if (!b->dry)
            fprintf(stderr, "tokitai-hip: bench: no kernel for %s %s, skipped\n", b->op, b->type);
        return 0;
    }
    if (o->shape_count > 0) {
        tool_tensors t;
        uint64_t state = o->have_seed ? o->seed : 1;
        if (b->dry)
            return tool_tensors_shape(&t, k, o->shapes, o->shape_count, o->transposed, o->axes, o->keepdims);
        int rc = tool_tensors_make(&t, k, o->shapes, o->shape_count, o->transposed, o->axes, o->keepdims, &state)
            != 0 ? 1 : tkh_bench_tensor_case(b->ctx, k, &t, b->check, o->reps ? o->reps : 100, b->first);
        tool_tensors_free(&t);
        b->first = 0;
        return rc;
    }
    if (k->check_product != NULL)
        return usage_error("bench %s: a matrix product is benchmarked over tensors: give --shape M,K --shape K,N "
            "(or N,K for a weight)", b->op);
    return each_item(b->o->sizes ? b->o->sizes : "1024,1048576,16777216,268435456", bench_size, b);
}

static int bench_op(const char *item, void *arg)
{
    bench_run *b = arg;
    b->op = item;
    return each_item(b->o->positional[1], bench_type, b);
}

static int cmd_bench(const options *o)
{
    if (o->positional_count != 2)
        return usage_error("bench needs OPS and TYPES (comma-separated lists)%s", "");
    if (o->shape_count > 0 && o->sizes != NULL)
        return usage_error("bench takes --sizes or --shape, not both (got --sizes %s and --shape)", o->sizes);
    if (o->shape_count == 0 && (o->transposed || o->axes || o->keepdims))
        return usage_error("bench takes --transpose, --axes and --keepdims only with --shape%s", "");
    tkh_oracle_policy policy;
    if (parse_oracle(o, o->have_seed ? o->seed : 1, &policy) != 0)
        return 2;
    bench_run b = { o, NULL, NULL, NULL, 1, 1, &policy };
    /* Every case's shapes first: a bad one is a usage error, also where there is no device. */
    int rc = o->shape_count > 0 ? each_item(o->positional[0], bench_op, &b) : 0;
    if (rc != 0)
        return rc;
    b.dry = 0;
    tkh_status st = tkh_context_create(&b.ctx, o->device);
    if (st == TKH_OK)
        st = tkh_context_set_oracle(b.ctx, &policy);
    if (st != TKH_OK) {
        tkh_context_destroy(b.ctx);
        fprintf(stderr, "tokitai-hip: %s: %s\n", tkh_status_name(st), tkh_last_error());
        return 1;
    }
    const tkh_device_report *d = tkh_context_device(b.ctx);
    printf("{\"device\": \"%s\", \"arch\": \"%s\", \"oracle\": \"%s\", \"host_checks\": \"%s\",\n"
           " \"results\": [\n", d->name, d->arch, o->oracle ? o->oracle : "full", tkh_host_check_level());
    rc = each_item(o->positional[0], bench_op, &b);
    printf("\n]}\n");
    tkh_context_destroy(b.ctx);
    return rc;
}

/* Is 'name' in the comma-separated 'list' ("all" holds every name)? */
static int listed(const char *list, const char *name)
{
    if (strcmp(list, "all") == 0)
        return 1;
    const size_t len = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += len)
        if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0'))
            return 1;
    return 0;
}

static int cmd_accuracy(const options *o)
{
    if (o->positional_count != 2)
        return usage_error("accuracy needs OPS and TYPES (comma-separated lists, or all)%s", "");
    const uint64_t samples = o->have_n ? (uint64_t)o->n : 100000000u, seed = o->have_seed ? o->seed : 1;
    if (samples == 0)
        return usage_error("--n must be at least 1%s", "");
    tkh_context *ctx = NULL;
    tkh_status st = tkh_context_create(&ctx, o->device);
    if (st != TKH_OK) {
        fprintf(stderr, "tokitai-hip: %s: %s\n", tkh_status_name(st), tkh_last_error());
        return 1;
    }
    const tkh_device_report *d = tkh_context_device(ctx);
    printf("{\"device\": \"%s\", \"arch\": \"%s\", \"platform\": \"%s\", \"version\": \"%s\",\n"
           " \"results\": [\n", d->name, d->arch, d->platform, tkh_version_string());
    const tkh_registry *reg = tkh_registry_core();
    int rc = 0, first = 1;
    for (size_t i = 0; i < reg->count && rc == 0; ++i) {
        const tkh_kernel_info *k = reg->kernels[i];
        /* The ulp rule's kernels of one type, one output and no scalars (the math ops). */
        int one_type = k->output_count == 1 && k->scalar_count == 0;
        for (unsigned a = 0; a < k->arity; ++a)
            one_type &= strcmp(k->inputs[a].type, k->outputs[0].type) == 0;
        if (strcmp(k->compare_rule, "ulp") == 0 && one_type && listed(o->positional[0], k->op)
            && listed(o->positional[1], k->type)) {
            rc = tkh_accuracy_case(ctx, k, samples, seed, first);
            first = 0;
        }
    }
    printf("\n]}\n");
    tkh_context_destroy(ctx);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(USAGE, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc != 0)
        return rc;
    const char *cmd = argv[1];
    if (o.scalar_count > 0 && strcmp(cmd, "run") != 0) /* bench fills scalars with fixed bytes */
        return usage_error("--scalar is an option of run only, not of '%s'", cmd);
    if (strcmp(cmd, "info") == 0)
        return cmd_info(&o);
    if (strcmp(cmd, "list") == 0)
        return cmd_list(&o);
    if (strcmp(cmd, "run") == 0)
        return cmd_run(&o);
    if (strcmp(cmd, "selftest") == 0)
        return cmd_selftest(&o);
    if (strcmp(cmd, "bench") == 0)
        return cmd_bench(&o);
    if (strcmp(cmd, "accuracy") == 0)
        return cmd_accuracy(&o);
    if (strcmp(cmd, "version") == 0) {
        printf("tokitai-hip %s (CPU checks: %s)\n", tkh_version_string(), tkh_host_check_level());
        return 0;
    }
    return usage_error("unknown command '%s'", cmd);
}
