/* The table of shapes, and what every shape does the same way through its hooks:
 * planning, checking, describing and launching a call. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "shapes.h"

/* In the order of tkh_shape_kind (generated from the generator's list of shapes). */
static const tkhi_shape *const shapes[] = {
    [TKH_SHAPE_ELEMENTWISE] = &tkhi_elementwise_shape,
    [TKH_SHAPE_REDUCTION] = &tkhi_reduction_shape,
    [TKH_SHAPE_NORMALIZATION] = &tkhi_normalization_shape,
    [TKH_SHAPE_MATMUL] = &tkhi_matmul_shape,
};
_Static_assert(sizeof shapes / sizeof shapes[0] == TKH_SHAPE_KINDS, "a shape of tkh_shape_kind has no module");

const tkhi_shape *tkhi_shape_of(const tkh_kernel_info *k)
{
    return shapes[k->shape_kind];
}

tkh_status tkhi_shape_known(const char *fn, const tkh_kernel_info *k)
{
    if ((unsigned)k->shape_kind < TKH_SHAPE_KINDS)
        return TKH_OK;
    return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: %s_%s has shape kind %d, which this runtime does not know "
        "(0 to %d): a catalog of a newer generator", fn, k->op, k->type, (int)k->shape_kind, TKH_SHAPE_KINDS - 1);
}

tkh_status tkhi_prepare(const char *fn, const tkh_context *ctx, const tkh_kernel_info *kernel,
    const tkh_tensor_args *args, int shapes_only, tkhi_call *c)
{
    int64_t stride[TKH_MAX_ARRAYS][TKH_MAX_DIMS];
    tkh_status st = tkhi_call_begin(fn, ctx, kernel, args, shapes_only, c, stride);
    if (st == TKH_OK)
        st = tkhi_shape_known(fn, kernel);
    if (st == TKH_OK) {
        const tkhi_shape *shape = tkhi_shape_of(kernel);
        c->folds = shape->folds;
        c->drops = shape->folds && shape->drops(kernel);
        st = shape->plan(fn, c, args, stride);
    }
    return st == TKH_OK && !shapes_only ? tkhi_call_finish(fn, c, stride) : st;
}

tkh_status tkhi_check_begin(tkhi_oracle *o, const tkhi_call *c, unsigned char *const *base,
    const int64_t (*stride)[TKH_MAX_DIMS])
{
    const tkhi_shape *shape = tkhi_shape_of(c->kernel);
    if (o->policy.mode != TKH_ORACLE_PROJECTED || shape->project_begin == NULL || c->plan.count <= 0)
        return TKH_OK;
    const tkh_status st = shape->project_begin(c, o, base, stride);
    return st == TKH_OK ? st : tkhi_fail(st, "%s: allocating the projected check's block sums failed", c->fn);
}

void tkhi_check_range(const tkhi_oracle *o, const tkhi_call *c, unsigned char *const *base,
    const int64_t (*stride)[TKH_MAX_DIMS], const void *const *scalars, int64_t first, int64_t count,
    tkhi_oracle_part *part)
{
    if (count <= 0 || o->policy.mode == TKH_ORACLE_OFF || part->bad != SIZE_MAX || part->failed != TKH_OK)
        return;
    const tkhi_shape *shape = tkhi_shape_of(c->kernel);
    if (o->policy.mode == TKH_ORACLE_PROJECTED && o->projection != NULL) {
        part->failed = shape->project(c, o->projection, base, stride, scalars, first, count, part);
        return;
    }
    if (o->policy.mode != TKH_ORACLE_SAMPLED) { /* full, or projected where the shape does not project */
        part->failed = shape->check(c, base, stride, scalars, first, count, NULL, part);
        return;
    }
    size_t from, at;
    tkhi_oracle_samples_in(o, first, count, &from, &at);
    if (at > 0)
        part->failed = shape->check(c, base, stride, scalars, 0, (int64_t)at, o->samples + from, part);
}

tkh_status tkhi_check(const tkhi_call *c, const tkh_oracle_policy *policy, unsigned char *const *base,
    const int64_t (*stride)[TKH_MAX_DIMS], const void *const *scalars, tkhi_oracle *o)
{
    tkh_status st = tkhi_oracle_begin(o, c->kernel, policy, c->plan.count, NULL);
    if (st != TKH_OK)
        return st;
    st = tkhi_check_begin(o, c, base, stride);
    if (st != TKH_OK)
        return st;
    tkhi_oracle_part part;
    tkhi_oracle_part_start(&part);
    tkhi_check_range(o, c, base, stride, scalars, 0, c->plan.count, &part);
    if (part.failed != TKH_OK)
        return tkhi_fail(part.failed, "%s: allocating the oracle's buffers failed", c->fn);
    tkhi_oracle_merge(o, &part, 1);
    return TKH_OK;
}

/* What the plan's evidence lines are made of, and nothing else: the kernel, where the
 * tensors are, each tensor's shape and strides as given, the index space and the plan
 * (its data pointers are not in the lines). The kernel by its address, and by its source's
 * fingerprint beside the key: another catalog loaded where an unloaded one was has other
 * fingerprints. */
enum { PLAN_KEY_MAX = 5 + 2 * TKH_MAX_DIMS + TKH_MAX_ARRAYS * (3 + 2 * TKH_MAX_DIMS) + 5
    + TKH_MAX_DIMS * (1 + TKH_MAX_ARRAYS) };

static size_t plan_key(const tkhi_call *c, int64_t *key)
{
    const tkh_plan *p = &c->plan;
    size_t n = 0;
    key[n++] = (int64_t)(intptr_t)c->kernel, key[n++] = c->on_device, key[n++] = c->flat;
    key[n++] = c->arrays, key[n++] = c->ndim;
    for (int d = 0; d < c->ndim; ++d)
        key[n++] = c->shape[d], key[n++] = c->reduced_axis[d];
    for (unsigned a = 0; a < c->arrays; ++a) {
        const DLTensor *t = c->absent[a] ? NULL : c->tensor[a];
        key[n++] = t == NULL ? -1 : t->ndim, key[n++] = t != NULL && t->strides != NULL;
        for (int d = 0; t != NULL && d < t->ndim; ++d)
            key[n++] = t->shape[d], key[n++] = t->strides ? t->strides[d] : 0;
    }
    key[n++] = p->ndim, key[n++] = p->wide, key[n++] = p->mode, key[n++] = p->count, key[n++] = p->reduce_count;
    for (int d = 0; d < p->ndim; ++d) {
        key[n++] = p->size[d];
        for (unsigned a = 0; a < c->arrays; ++a)
            key[n++] = p->stride[a][d];
    }
    return n;
}

/* A thread's last plan lines and their key: a loop of calls over the same shapes copies
 * them rather than formatting them again (they were most of a small call's report). */
static _Thread_local struct {
    size_t key_len;
    int64_t key[PLAN_KEY_MAX];
    char fingerprint[80];
    unsigned count;
    char lines[TKH_MAX_ARRAYS + 2][sizeof ((tkh_report *)0)->evidence[0]];
} last_plan;

void tkhi_plan_evidence(const tkhi_call *c, tkh_report *report)
{
    if (report == NULL) /* the device path's calls without a report: no formatting */
        return;
    int64_t key[PLAN_KEY_MAX];
    const size_t key_len = plan_key(c, key);
    const char *fingerprint = c->kernel->source_fingerprint ? c->kernel->source_fingerprint : "";
    if (key_len == last_plan.key_len && memcmp(key, last_plan.key, key_len * sizeof key[0]) == 0
        && strcmp(fingerprint, last_plan.fingerprint) == 0) {
        for (unsigned i = 0; i < last_plan.count && report->evidence_count < TKH_REPORT_MAX_EVIDENCE; ++i)
            memcpy(report->evidence[report->evidence_count++], last_plan.lines[i], sizeof last_plan.lines[i]);
        return;
    }
    const size_t first = report->evidence_count;
    const tkhi_shape *shape = tkhi_shape_of(c->kernel);
    tkhi_tensor_evidence(c, report);
    shape->describe(c, report);
    tkhi_plan_line(c, shape->layout(c), report);
    last_plan.key_len = 0; /* kept only when every line fitted the report */
    if (report->evidence_count < TKH_REPORT_MAX_EVIDENCE) {
        last_plan.count = (unsigned)(report->evidence_count - first);
        memcpy(last_plan.lines, report->evidence[first], last_plan.count * sizeof last_plan.lines[0]);
        memcpy(last_plan.key, key, key_len * sizeof key[0]);
        /* cut where longer: it then never matches, and the lines are formatted each time */
        tkhi_copy(last_plan.fingerprint, sizeof last_plan.fingerprint, fingerprint);
        last_plan.key_len = key_len;
    }
}

void tkhi_flat_geometry(const tkh_context *ctx, const tkh_kernel_info *k, size_t n, unsigned *grid,
    unsigned *block)
{
    tkhi_shape_of(k)->flat_geometry(ctx, k, n, grid, block);
}

void tkhi_launch_choose(tkhi_launch_spec *l, tkh_plan *plan)
{
    l->plan = plan;
    if (plan == NULL)
        tkhi_flat_geometry(l->ctx, l->kernel, l->n, &l->grid, &l->block);
    else
        tkhi_shape_of(l->kernel)->geometry(l->ctx, l->c, plan, l->in[0], &l->grid, &l->block);
    l->copies = plan != NULL && l->kernel->copies != NULL ? l->kernel->copies(l->in, plan) : 0;
}

size_t tkhi_launch_scratch(const tkhi_launch_spec *l)
{
    const tkh_kernel_info *k = l->kernel;
    if (l->plan == NULL)
        return (size_t)l->grid * k->scratch_size;
    const size_t partials = l->plan->split > 1 ? (size_t)l->plan->split * (size_t)l->plan->count * k->scratch_size : 0;
    return l->copies > 0 ? (partials + 255) / 256 * 256 + l->copies : partials;
}

tkh_status tkhi_launch_run(void *arg, void *scratch)
{
    const tkhi_launch_spec *l = arg;
    const tkh_kernel_info *k = l->kernel;
    if (l->plan == NULL) {
        int err = tkhi_launch(l->ctx, k, l->in, l->out, l->scalars, l->n, l->grid, l->block, scratch, l->stream);
        if (err != 0)
            return tkhi_fail_runtime(TKH_ERR_LAUNCH, err, "launching %s (grid %u, block %u, n %zu) failed",
                k->symbol, l->grid, l->block, l->n);
        return TKH_OK;
    }
    int err = tkhi_launch_plan(l->ctx, k, l->in, l->out, l->scalars, l->plan, l->grid, l->block, scratch, l->stream);
    if (err != 0)
        return tkhi_fail_runtime(TKH_ERR_LAUNCH, err, "%s: launching %s over a plan of %d dimensions (grid %u x %d, "
            "block %u) failed", l->c->fn, k->symbol, l->plan->ndim, l->grid, l->plan->split, l->block);
    return TKH_OK;
}

void tkhi_launch_evidence(const tkhi_launch_spec *l, const char *what, tkh_report *report)
{
    if (report != NULL) {
        report->launch_grid = l->grid;
        report->launch_block = l->block;
    }
    if (l->plan->split > 1)
        tkhi_evidence(report, "%s %s over the plan, grid %u x %d (each output's elements in %d blocks of up "
            "to %" PRId64 ", their partials folded by a second kernel) x block %u", what, l->kernel->symbol,
            l->grid, l->plan->split, l->plan->split, l->plan->chunk, l->block);
    else
        tkhi_evidence(report, "%s %s over the plan, grid %u x block %u", what, l->kernel->symbol, l->grid,
            l->block);
    if (l->copies > 0)
        tkhi_evidence(report, "the MN-major operands first copied K-major into %zu bytes of the call's scratch "
            "(Hopper's 8-bit wgmma reads its operands K-major only)", l->copies);
}
