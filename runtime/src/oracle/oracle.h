/* The oracle layer, its one door: applying the context's oracle policy to a result, range
 * by range over the crew (oracle.c), and walking a plan on the host (walk.c). What each
 * shape compares is the shape's (shapes/). */
#ifndef TOKITAI_HIP_ORACLE_H
#define TOKITAI_HIP_ORACLE_H

#include <stdint.h>

#include "plan/plan.h"

typedef struct tkhi_oracle {
    const tkh_kernel_info *kernel;
    tkh_oracle_policy policy;
    int64_t *samples;    /* TKH_ORACLE_SAMPLED: the indices, sorted */
    size_t compared;     /* outputs compared so far */
    size_t bad;          /* the first output that differs, or SIZE_MAX */
    tkh_check_note note; /* what differed there; the largest error seen, with its index */
    tkhi_crew *crew;     /* NULL: the calling thread alone */
    void *projection;    /* TKH_ORACLE_PROJECTED where the shape checks so: its state, freed
                            by 'release' at the end */
    void (*release)(void *projection);
    double threshold;    /* the projected check: the largest error of one output it was
                            certain to catch, over the call (0: any) */
    size_t projected;    /* the projected check: outputs checked by their projections (the
                            others of 'compared' were recomputed in full) */
    size_t grain;        /* check ranges start and end best at multiples of it (0, 1: anywhere) */
} tkhi_oracle;

/* The seed a report states for 'policy': the sampled indices' or the projections' weights'
 * (0 under full and off, which draw nothing). */
static inline unsigned long long tkhi_oracle_seed(const tkh_oracle_policy *policy)
{
    return policy->mode == TKH_ORACLE_SAMPLED || policy->mode == TKH_ORACLE_PROJECTED ? policy->seed : 0;
}

/* Draws the sample indices of [0, count) under a sampled policy (with replacement,
 * splitmix64 from the seed, sorted). Fails with: TKH_ERR_HOST_ALLOC. */
TKH_HIDDEN tkh_status tkhi_oracle_begin(tkhi_oracle *o, const tkh_kernel_info *kernel,
    const tkh_oracle_policy *policy, int64_t count, tkhi_crew *crew);

/* The samples in [first, first + count): *at of them from o->samples[*from]. */
TKH_HIDDEN void tkhi_oracle_samples_in(const tkhi_oracle *o, int64_t first, int64_t count, size_t *from,
    size_t *at);

/* What one thread found over its indices, run piece by piece, in order (a piece after a
 * difference is skipped); tkhi_oracle_merge collects the threads' results. Indices are the
 * call's. */
typedef struct tkhi_oracle_part {
    size_t bad;          /* SIZE_MAX when none */
    size_t compared;
    tkh_check_note note;
    tkh_status failed;   /* TKH_ERR_HOST_ALLOC: the check's buffers; raised by the caller */
    double threshold;    /* the projected check's, over this part's outputs */
    size_t projected;    /* of 'compared', outputs checked by their projections */
} tkhi_oracle_part;

static inline void tkhi_oracle_part_start(tkhi_oracle_part *part)
{
    part->bad = SIZE_MAX;
    part->compared = 0;
    part->note.detail[0] = '\0';
    part->note.worst = 0;
    part->note.worst_index = 0;
    part->failed = TKH_OK;
    part->threshold = 0;
    part->projected = 0;
}

/* Folds the parts' results into o. Returns 1 when one differs. */
TKH_HIDDEN int tkhi_oracle_merge(tkhi_oracle *o, const tkhi_oracle_part *parts, unsigned count);

/* A reduction's one output (fully checked under any policy but off), folded over the
 * crew when there is one. Returns 1 when it differs. */
TKH_HIDDEN int tkhi_oracle_reduction(tkhi_oracle *o, const tkhi_arrays *arrays,
    const void *const *scalars, size_t n, unsigned grid, unsigned block);

/* The same from folds the caller made (count of them, in input order), merged here. */
TKH_HIDDEN int tkhi_oracle_folded(tkhi_oracle *o, tkh_fold *folds, unsigned count,
    const tkhi_arrays *arrays, const void *const *scalars, size_t n, unsigned grid, unsigned block);

TKH_HIDDEN void tkhi_oracle_end(tkhi_oracle *o);

/* Part 'part' of 'parts' of [0, count), with the same boundaries for every count up to
 * 'whole' (so that two ranges split alike never hand one index to two threads). */
TKH_HIDDEN void tkhi_split(size_t whole, size_t count, unsigned part, unsigned parts,
    size_t *lo, size_t *hi);

/* The same for whole = count, each inner boundary moved up to where first + boundary is a
 * multiple of 'grain' (a check that works by rows gets whole rows). */
TKH_HIDDEN void tkhi_split_aligned(int64_t first, size_t count, size_t grain, unsigned part, unsigned parts,
    size_t *lo, size_t *hi);

/* Elements gathered per check when the oracle walks a plan. */
#define TKHI_BATCH 4096

/* Offsets (elements) of 'count' consecutive linear indices from 'first' over plan
 * dimensions [from, to), row-major with 'from' the fastest; tkhi_offset_at: of one. */
TKH_HIDDEN void tkhi_walk(const tkh_plan *p, int from, int to, const int64_t *stride, int64_t first,
    size_t count, int64_t *off);
TKH_HIDDEN int64_t tkhi_offset_at(const tkh_plan *p, int from, int to, const int64_t *stride, int64_t linear);

/* Copies 'count' elements of 'size' bytes at offsets 'off' from base to dst, packed. */
TKH_HIDDEN void tkhi_gather(unsigned char *dst, const unsigned char *base, const int64_t *off, size_t count,
    size_t size);

/* Copies elements [first, first + count) of output 'output' (row-major in the outputs'
 * index space) from 'dense' (at element first) into the caller's tensor, in runs along the
 * plan's innermost output dimension where the tensor is compact along it. */
TKH_HIDDEN void tkhi_tensor_scatter(const tkhi_call *c, unsigned output, const unsigned char *dense, int64_t first,
    int64_t count);

#endif
