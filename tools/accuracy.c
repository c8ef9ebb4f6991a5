/* tokitai-hip accuracy: how far each kernel under the ulp rule is from its reference, on
 * the device, over every input (unary f16, bf16 and f32: all 2^16 or 2^32 of them) or a
 * seeded random sample with every tuple of edge values (f64, and functions of several
 * operands). Inputs go in chunks through the device entry point; the host measures each
 * output with the kernel's own check (the ulp rule, tokitai_hip/compare.h), on several
 * threads, and keeps going past outputs beyond the bound, counting them. One JSON object
 * per kernel on stdout. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "accuracy.h"
#include "random.h"
#include "tokitai_hip/codegen/hip_platform.h"

#define CHUNK ((size_t)1 << 26) /* elements per round trip */
#define MAX_THREADS 32

/* One random input: a random bit pattern (3 in 8: every binade, NaN and infinities), a
 * uniform value in [-1, 1) scaled by 2^e for e in [-20, 20] (2 in 8), a uniform value in
 * [-10, 10) (2 in 8), or a small integer or half-integer in [-16, 16] (1 in 8: pow's and
 * atan2's exact cases). */
static void random_element(const tkh_scalar_type *t, uint64_t *state, unsigned char *at)
{
    const uint64_t r = tkh_tool_random(state), pick = r & 7;
    const double u = (double)(tkh_tool_random(state) >> 11) * 0x1p-53; /* [0, 1) */
    if (pick < 3) {
        memcpy(at, &r, t->size);
        return;
    }
    double v;
    if (pick < 5)
        v = ldexp(2 * u - 1, (int)((r >> 8) % 41) - 20);
    else if (pick < 7)
        v = 20 * u - 10;
    else
        v = (double)((int64_t)((r >> 8) % 65) - 32) / 2;
    t->from_double(v, at); /* rounded once to the type, to nearest even */
}

/* Edge values of every float type, as doubles (each is stored rounded to the type; the
 * extremes are the type's own: from its significand bits and normal exponents). */
enum { EDGES = 20 };
static double edge_value(const tkh_scalar_type *t, size_t i)
{
    const double ulp_of_one = ldexp(1, 1 - t->mantissa);
    const double big = ldexp(2 - ulp_of_one, t->emax);          /* the largest finite value */
    const double tiny = ldexp(1, t->emin - (t->mantissa - 1));  /* the smallest subnormal */
    const double normal = ldexp(1, t->emin);                    /* the smallest normal */
    const double one_up = 1 + ulp_of_one;                       /* the next value above 1 */
    const double values[EDGES] = { 0.0, -0.0, 1, -1, INFINITY, -INFINITY, NAN, big, -big, normal,
        tiny, -tiny, 0.5, 2, 3, -2, one_up, 2 - one_up, 10, -0.5 };
    return values[i];
}

static size_t edge_tuples(unsigned arity)
{
    size_t n = 1;
    for (unsigned a = 0; a < arity; ++a)
        n *= EDGES;
    return n;
}

/* Fills inputs [first, first + count) of a chunk that starts at input 'base': consecutive
 * bit patterns (exhaustive), or the edge tuples then random values, each block of BLOCK
 * inputs from a stream of its own (the same inputs for any number of threads). */
typedef struct fill_job {
    const tkh_kernel_info *k;
    const tkh_scalar_type *t; /* its type */
    unsigned char *in[3];
    int exhaustive;
    uint64_t base, seed;
    size_t first, count;
    pthread_t thread;
    int threaded;
} fill_job;

static void *fill(void *arg)
{
    fill_job *f = arg;
    const tkh_kernel_info *k = f->k;
    const tkh_scalar_type *t = f->t;
    const size_t size = k->outputs[0].size, tuples = edge_tuples(k->arity);
    for (size_t i = f->first; i < f->first + f->count; ++i) {
        const uint64_t at = f->base + i;
        if (f->exhaustive) {
            memcpy(f->in[0] + i * size, &at, size);
        } else if (at < tuples) {
            for (size_t a = 0, rest = (size_t)at; a < k->arity; ++a, rest /= EDGES)
                t->from_double(edge_value(t, rest % EDGES), f->in[a] + i * size);
        } else {
            uint64_t state = f->seed ^ (at * 0x9E3779B97F4A7C15ull); /* a stream per input */
            for (unsigned a = 0; a < k->arity; ++a)
                random_element(t, &state, f->in[a] + i * size);
        }
    }
    return NULL;
}

typedef struct part {
    const tkh_kernel_info *k;
    const unsigned char *in[3], *out;
    size_t first, count;       /* of this chunk's outputs */
    double worst;              /* the largest error in this part, failures included */
    size_t worst_at;           /* its index in the chunk */
    size_t exceeding;          /* outputs beyond the bound */
    char first_detail[256];    /* the first of them */
    pthread_t thread;
    int threaded;
} part;

/* Measures outputs [first, first + count) with the kernel's check, resuming after each
 * output beyond the bound. */
static void *measure(void *arg)
{
    part *p = arg;
    const tkh_kernel_info *k = p->k;
    size_t at = p->first;
    const size_t end = p->first + p->count;
    while (at < end) {
        const void *in[3];
        for (unsigned a = 0; a < k->arity; ++a)
            in[a] = p->in[a] + at * k->outputs[0].size;
        tkh_check_note note = { .worst = 0 };
        const size_t n = end - at;
        const void *out[1] = { p->out + at * k->outputs[0].size };
        const size_t bad = k->check(in, out, NULL, n, 0, 0, &note);
        if (note.worst > p->worst) {
            p->worst = note.worst;
            p->worst_at = at + note.worst_index;
        }
        if (bad >= n)
            break;
        if (p->exceeding++ == 0)
            snprintf(p->first_detail, sizeof p->first_detail, "%s", note.detail);
        if (note.error > p->worst || isinf(note.error)) {
            p->worst = note.error;
            p->worst_at = at + bad;
        }
        at += bad + 1;
    }
    return NULL;
}

static unsigned thread_count(void)
{
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online < 1 ? 1u : online > MAX_THREADS ? MAX_THREADS : (unsigned)online;
}

static void print_element(const tkh_scalar_type *t, const unsigned char *at)
{
    const double v = t->to_double(at);
    uint64_t bits = 0;
    memcpy(&bits, at, t->size);
    if (isfinite(v))
        printf("{\"value\": %.17g, \"bits\": \"0x%0*" PRIx64 "\"}", v, (int)(2 * t->size), bits);
    else
        printf("{\"value\": \"%s\", \"bits\": \"0x%0*" PRIx64 "\"}", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf",
            (int)(2 * t->size), bits);
}

/* JSON text: the check's detail has no quotes or backslashes, but say so by escaping. */
static void print_json_text(const char *s)
{
    putchar('"');
    for (; *s; ++s)
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s >= 0x20)
            putchar(*s);
    putchar('"');
}

int tkh_accuracy_case(tkh_context *ctx, const tkh_kernel_info *k, uint64_t samples, uint64_t seed,
    int first)
{
    const int exhaustive = k->arity == 1 && k->outputs[0].size <= 4;
    const uint64_t total = exhaustive ? (uint64_t)1 << (8 * k->outputs[0].size) : samples;
    const size_t chunk = total < CHUNK ? (size_t)total : CHUNK;
    const size_t size = k->outputs[0].size;
    unsigned char *host_in[3] = { NULL, NULL, NULL }, *host_out = NULL, *dev_in[3] = { NULL, NULL, NULL },
                  *dev_out = NULL;
    unsigned char worst_inputs[3][8] = { { 0 } }, worst_output[8] = { 0 };
    int rc = 1;
    const tkh_scalar_type *type = tkh_scalar_type_find(k->type);
    if (type == NULL || type->from_double == NULL) { /* the ulp rule's kernels are of floats */
        fprintf(stderr, "tokitai-hip: accuracy %s %s: not a float type\n", k->op, k->type);
        return 1;
    }
    for (unsigned a = 0; a < k->arity; ++a)
        if (hipHostMalloc((void **)&host_in[a], chunk * size, hipHostMallocDefault) != hipSuccess
            || hipMalloc((void **)&dev_in[a], chunk * size) != hipSuccess)
            goto done;
    if (hipHostMalloc((void **)&host_out, chunk * size, hipHostMallocDefault) != hipSuccess
        || hipMalloc((void **)&dev_out, chunk * size) != hipSuccess)
        goto done;

    const unsigned threads = thread_count();
    double worst = 0;
    uint64_t worst_at = 0, exceeding = 0, done_count = 0;
    char first_detail[256] = "";
    const double start = (double)clock() / CLOCKS_PER_SEC;
    for (uint64_t base = 0; base < total; base += chunk) {
        const size_t count = total - base < chunk ? (size_t)(total - base) : chunk;
        fill_job fills[MAX_THREADS];
        const size_t share = (count + threads - 1) / threads;
        unsigned filling = 0;
        for (unsigned t = 0; t < threads && (size_t)t * share < count; ++t, ++filling) {
            const size_t from = (size_t)t * share;
            fills[t] = (fill_job){ .k = k, .t = type, .in = { host_in[0], host_in[1], host_in[2] },
                .exhaustive = exhaustive, .base = base, .seed = seed, .first = from,
                .count = count - from < share ? count - from : share };
            fills[t].threaded = pthread_create(&fills[t].thread, NULL, fill, &fills[t]) == 0;
            if (!fills[t].threaded)
                fill(&fills[t]);
        }
        for (unsigned t = 0; t < filling; ++t)
            if (fills[t].threaded)
                pthread_join(fills[t].thread, NULL);
        const void *d_in[3] = { dev_in[0], dev_in[1], dev_in[2] };
        for (unsigned a = 0; a < k->arity; ++a)
            if (hipMemcpy(dev_in[a], host_in[a], count * size, hipMemcpyHostToDevice) != hipSuccess)
                goto done;
        if (tkh_kernel_launch(ctx, k, d_in, k->arity, dev_out, count, NULL) != TKH_OK) {
            fprintf(stderr, "tokitai-hip: accuracy: %s\n", tkh_last_error());
            goto done;
        }
        if (hipMemcpy(host_out, dev_out, count * size, hipMemcpyDeviceToHost) != hipSuccess)
            goto done;
        part parts[MAX_THREADS];
        const size_t step = (count + threads - 1) / threads;
        unsigned started = 0;
        for (unsigned t = 0; t < threads && (size_t)t * step < count; ++t, ++started) {
            parts[t] = (part){ .k = k, .in = { host_in[0], host_in[1], host_in[2] }, .out = host_out,
                .first = (size_t)t * step, .count = count - (size_t)t * step < step ? count - (size_t)t * step : step };
            parts[t].threaded = pthread_create(&parts[t].thread, NULL, measure, &parts[t]) == 0;
            if (!parts[t].threaded)
                measure(&parts[t]);
        }
        for (unsigned t = 0; t < started; ++t) {
            if (parts[t].threaded)
                pthread_join(parts[t].thread, NULL);
            if (parts[t].exceeding && exceeding == 0)
                snprintf(first_detail, sizeof first_detail, "%s", parts[t].first_detail);
            exceeding += parts[t].exceeding;
            if (parts[t].worst > worst || (isinf(parts[t].worst) && !isinf(worst))) {
                worst = parts[t].worst;
                worst_at = base + parts[t].worst_at;
                for (unsigned a = 0; a < k->arity; ++a)
                    memcpy(worst_inputs[a], host_in[a] + parts[t].worst_at * size, size);
                memcpy(worst_output, host_out + parts[t].worst_at * size, size);
            }
        }
        done_count += count;
    }
    printf("%s  {\"op\": \"%s\", \"type\": \"%s\", \"method\": \"%s\", \"inputs\": %" PRIu64
           ", \"seed\": %" PRIu64 ", \"bound\": %.6g, \"max_ulp_error\": ",
        first ? "" : ",\n", k->op, k->type, exhaustive ? "exhaustive" : "random", done_count,
        exhaustive ? (uint64_t)0 : seed, k->ulp_bound);
    if (isfinite(worst))
        printf("%.6g", worst);
    else
        printf("\"special value out of rule\"");
    printf(", \"exceeding\": %" PRIu64 ", \"at\": {\"index\": %" PRIu64 ", \"inputs\": [", exceeding, worst_at);
    for (unsigned a = 0; a < k->arity; ++a) {
        printf("%s", a ? ", " : "");
        print_element(type, worst_inputs[a]);
    }
    printf("], \"output\": ");
    print_element(type, worst_output);
    printf("}, \"first_exceeding\": ");
    print_json_text(first_detail);
    printf(", \"host_cpu_seconds\": %.1f}", (double)clock() / CLOCKS_PER_SEC - start);
    fflush(stdout);
    rc = 0;
done:
    if (rc != 0)
        fprintf(stderr, "tokitai-hip: accuracy %s %s: a device allocation, copy or launch failed\n", k->op, k->type);
    for (unsigned a = 0; a < 3; ++a) {
        hipHostFree(host_in[a]);
        hipFree(dev_in[a]);
    }
    hipHostFree(host_out);
    hipFree(dev_out);
    return rc;
}
