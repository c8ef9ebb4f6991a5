/* The oracle policy: full, sampled (sorted indices from splitmix64) or off. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

static int by_index(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

tkh_status tkhi_oracle_begin(tkhi_oracle *o, const tkh_kernel_info *kernel,
    const tkh_oracle_policy *policy, int64_t count, tkhi_crew *crew)
{
    memset(o, 0, sizeof *o);
    o->kernel = kernel;
    o->policy = *policy;
    o->bad = SIZE_MAX;
    o->crew = crew;
    if (policy->mode != TKH_ORACLE_SAMPLED || count <= 0)
        return TKH_OK;
    if (policy->samples > SIZE_MAX / sizeof(int64_t)
        || (o->samples = malloc(policy->samples * sizeof(int64_t))) == NULL)
        return tkhi_fail(TKH_ERR_HOST_ALLOC, "allocating %zu sample indices failed", policy->samples);
    uint64_t state = policy->seed;
    for (size_t i = 0; i < policy->samples; ++i) /* modulo bias: at most count / 2^64 */
        o->samples[i] = (int64_t)(tkhi_splitmix64(&state) % (uint64_t)count);
    qsort(o->samples, policy->samples, sizeof(int64_t), by_index);
    return TKH_OK;
}

void tkhi_oracle_end(tkhi_oracle *o)
{
    free(o->samples);
    o->samples = NULL;
    if (o->release != NULL)
        o->release(o->projection);
    o->projection = NULL;
    o->release = NULL;
}

void tkhi_split(size_t whole, size_t count, unsigned part, unsigned parts, size_t *lo, size_t *hi)
{
    const size_t step = (whole + parts - 1) / parts;
    *lo = (size_t)part * step < count ? (size_t)part * step : count;
    *hi = *lo + step < count ? *lo + step : count;
}

static size_t aligned_boundary(int64_t first, size_t count, size_t grain, size_t at)
{
    if (at == 0 || at >= count || grain <= 1)
        return at < count ? at : count;
    const size_t up = (grain - (size_t)((first + (int64_t)at) % (int64_t)grain)) % grain;
    return count - at > up ? at + up : count;
}

void tkhi_split_aligned(int64_t first, size_t count, size_t grain, unsigned part, unsigned parts, size_t *lo,
    size_t *hi)
{
    const size_t step = (count + parts - 1) / parts;
    *lo = aligned_boundary(first, count, grain, (size_t)part * step);
    *hi = aligned_boundary(first, count, grain, (size_t)(part + 1) * step);
}

/* The first sample index >= 'at'. */
static size_t first_sample(const tkhi_oracle *o, int64_t at)
{
    size_t lo = 0, hi = o->samples != NULL ? o->policy.samples : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->samples[mid] < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void tkhi_oracle_samples_in(const tkhi_oracle *o, int64_t first, int64_t count, size_t *from, size_t *at)
{
    *from = first_sample(o, first);
    *at = first_sample(o, first + count) - *from;
}

int tkhi_oracle_merge(tkhi_oracle *o, const tkhi_oracle_part *parts, unsigned count)
{
    const tkhi_oracle_part *earliest = NULL;
    for (unsigned p = 0; p < count; ++p) {
        o->compared += parts[p].compared;
        if (parts[p].bad != SIZE_MAX && (earliest == NULL || parts[p].bad < earliest->bad))
            earliest = &parts[p];
        o->projected += parts[p].projected;
        if (parts[p].threshold > o->threshold)
            o->threshold = parts[p].threshold;
        if (parts[p].note.worst > o->note.worst) {
            o->note.worst = parts[p].note.worst;
            o->note.worst_index = parts[p].note.worst_index;
        }
    }
    if (earliest == NULL || o->bad != SIZE_MAX)
        return o->bad != SIZE_MAX;
    o->bad = earliest->bad;
    memcpy(o->note.detail, earliest->note.detail, sizeof o->note.detail);
    return 1;
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
