/* The oracle policy: full, sampled (sorted indices from splitmix64) or off. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

static int by_index(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

tkh_status tkhi_oracle_begin(tkhi_oracle *o, const tkh_kernel_info *kernel,
    const tkh_oracle_policy *policy, size_t n, tkhi_crew *crew)
{
    memset(o, 0, sizeof *o);
    o->kernel = kernel;
    o->policy = *policy;
    o->bad = SIZE_MAX;
    o->crew = crew;
    if (policy->mode != TKH_ORACLE_SAMPLED || kernel->out_count != 0)
        return TKH_OK;
    if (policy->samples > SIZE_MAX / sizeof(size_t)
        || (o->samples = malloc(policy->samples * sizeof(size_t))) == NULL)
        return tkhi_fail(TKH_ERR_HOST_ALLOC, "allocating %zu sample indices failed", policy->samples);
    uint64_t state = policy->seed;
    for (size_t i = 0; i < policy->samples; ++i) /* modulo bias: at most n / 2^64 */
        o->samples[i] = (size_t)(tkhi_splitmix64(&state) % n);
    qsort(o->samples, policy->samples, sizeof(size_t), by_index);
    return TKH_OK;
}

void tkhi_oracle_end(tkhi_oracle *o)
{
    free(o->samples);
    o->samples = NULL;
}

void tkhi_split(size_t whole, size_t count, unsigned part, unsigned parts, size_t *lo, size_t *hi)
{
    const size_t step = (whole + parts - 1) / parts;
    *lo = (size_t)part * step < count ? (size_t)part * step : count;
    *hi = *lo + step < count ? *lo + step : count;
}

/* The first sample index >= 'at'. */
static size_t first_sample(const tkhi_oracle *o, size_t at)
{
    size_t lo = 0, hi = o->policy.samples;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->samples[mid] < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void tkhi_oracle_part_run(const tkhi_oracle *o, const tkhi_arrays *arrays, const void *const *scalars,
    size_t first, size_t lo, size_t hi, tkhi_oracle_part *result)
{
    const tkh_kernel_info *k = o->kernel;
    if (lo >= hi || o->policy.mode == TKH_ORACLE_OFF || result->bad != SIZE_MAX)
        return;
    tkhi_arrays at;
    if (o->policy.mode == TKH_ORACLE_FULL) {
        tkhi_arrays_at(k, arrays, lo, &at);
        const double worst = result->note.worst;
        size_t bad = k->check(at.in, (const void *const *)at.out, scalars, hi - lo, 0, 0, &result->note);
        if (result->note.worst > worst) /* the check's index is of this piece */
            result->note.worst_index += lo;
        result->compared += bad < hi - lo ? bad + 1 : hi - lo;
        if (bad < hi - lo)
            result->bad = lo + bad;
        return;
    }
    for (size_t s = first_sample(o, first + lo); s < o->policy.samples && o->samples[s] < first + hi; ++s) {
        const size_t i = o->samples[s] - first;
        tkhi_arrays_at(k, arrays, i, &at);
        ++result->compared;
        const double worst = result->note.worst;
        const size_t agree = k->check(at.in, (const void *const *)at.out, scalars, 1, 0, 0, &result->note);
        if (result->note.worst > worst)
            result->note.worst_index = i;
        if (agree == 0) {
            result->bad = i;
            return;
        }
    }
}

int tkhi_oracle_merge(tkhi_oracle *o, size_t first, const tkhi_oracle_part *parts, unsigned count)
{
    const tkhi_oracle_part *earliest = NULL;
    for (unsigned p = 0; p < count; ++p) {
        o->compared += parts[p].compared;
        if (parts[p].bad != SIZE_MAX && (earliest == NULL || parts[p].bad < earliest->bad))
            earliest = &parts[p];
        if (parts[p].note.worst > o->note.worst) {
            o->note.worst = parts[p].note.worst;
            o->note.worst_index = first + parts[p].note.worst_index;
        }
    }
    if (earliest == NULL || o->bad != SIZE_MAX)
        return o->bad != SIZE_MAX;
    o->bad = first + earliest->bad;
    memcpy(o->note.detail, earliest->note.detail, sizeof o->note.detail);
    return 1;
}

typedef struct range_job {
    const tkhi_oracle *o;
    const tkhi_arrays *arrays;
    const void *const *scalars;
    size_t first, count;
    tkhi_oracle_part parts[TKHI_CREW_MAX];
} range_job;

static void range_part(void *arg, unsigned part, unsigned parts)
{
    range_job *job = arg;
    size_t lo, hi;
    tkhi_split(job->count, job->count, part, parts, &lo, &hi);
    tkhi_oracle_part_start(&job->parts[part]);
    tkhi_oracle_part_run(job->o, job->arrays, job->scalars, job->first, lo, hi, &job->parts[part]);
}

int tkhi_oracle_range(tkhi_oracle *o, const tkhi_arrays *arrays, const void *const *scalars, size_t first,
    size_t count)
{
    range_job job = { .o = o, .arrays = arrays, .scalars = scalars, .first = first, .count = count };
    const unsigned parts = o->crew != NULL ? o->crew->size : 1;
    if (parts > 1)
        tkhi_crew_run(o->crew, range_part, &job);
    else
        range_part(&job, 0, 1);
    return tkhi_oracle_merge(o, first, job.parts, parts);
}

int tkhi_oracle_folded(tkhi_oracle *o, tkh_fold *folds, unsigned count, const tkhi_arrays *arrays,
    const void *const *scalars, size_t n, unsigned grid, unsigned block)
{
    (void)scalars;
    const tkh_kernel_info *k = o->kernel;
    if (o->policy.mode == TKH_ORACLE_OFF)
        return 0;
    o->compared = 1;
    for (unsigned p = 1; p < count; ++p)
        k->merge(&folds[0], &folds[p]);
    if (k->finish(&folds[0], (const void *const *)arrays->out, n, grid, block, &o->note))
        return 0;
    o->bad = 0;
    return 1;
}

typedef struct fold_job {
    const tkh_kernel_info *kernel;
    const unsigned char *input;
    size_t n;
    tkh_fold parts[TKHI_CREW_MAX];
} fold_job;

static void fold_part(void *arg, unsigned part, unsigned parts)
{
    fold_job *job = arg;
    size_t lo, hi;
    tkhi_split(job->n, job->n, part, parts, &lo, &hi);
    job->kernel->fold(job->input + lo * job->kernel->inputs[0].size, lo, hi - lo, &job->parts[part]);
}

int tkhi_oracle_reduction(tkhi_oracle *o, const tkhi_arrays *arrays, const void *const *scalars, size_t n,
    unsigned grid, unsigned block)
{
    const tkh_kernel_info *k = o->kernel;
    if (o->policy.mode == TKH_ORACLE_OFF)
        return 0;
    if (o->crew != NULL && k->fold != NULL) { /* the crew folds a part each */
        fold_job job = { .kernel = k, .input = arrays->in[0], .n = n };
        tkhi_crew_run(o->crew, fold_part, &job);
        return tkhi_oracle_folded(o, job.parts, o->crew->size, arrays, scalars, n, grid, block);
    }
    o->compared = 1;
    if (k->check(arrays->in, (const void *const *)arrays->out, scalars, n, grid, block, &o->note) == n)
        return 0;
    o->bad = 0;
    return 1;
}
