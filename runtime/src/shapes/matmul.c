/* The matrix-product shape: out[..., m, n] = epilogue(sum over k of a[..., m, k] * b[..., k, n])
 * (or b[..., n, k], linear's weight) under NumPy's matmul rules: batch dimensions
 * broadcast, a 1-D a is a row and a 1-D b a column, each dropped from the result. Each
 * output's sum is checked by the generated check along rows of the product
 * (docs/matmul.md). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shapes.h"
#include "tokitai_hip/codegen/small_m.h"

/* The plan's dimensions: k (reduced), n, m, then the batch, innermost first. */
enum { K_DIM = 0, N_DIM = 1, M_DIM = 2, BATCH_DIM = 3 };

/* One operand's matrix: its rows and columns, their strides, and how many batch
 * dimensions lead it (a 1-D operand: the dimension it lacks has size 1, stride 0). */
typedef struct operand_view {
    int64_t rows, cols, row_stride, col_stride;
    int batch;
} operand_view;

static operand_view view_of(const DLTensor *t, const int64_t *stride, int is_column)
{
    operand_view v = { 1, 1, 0, 0, 0 };
    if (t->ndim == 1) {
        *(is_column ? &v.rows : &v.cols) = t->shape[0];
        *(is_column ? &v.row_stride : &v.col_stride) = stride[0];
        return v;
    }
    v.batch = t->ndim - 2;
    v.rows = t->shape[t->ndim - 2];
    v.cols = t->shape[t->ndim - 1];
    v.row_stride = stride[t->ndim - 2];
    v.col_stride = stride[t->ndim - 1];
    return v;
}

/* Array x's strides along the plan's n, m and batch, from 'aligned': its stride along each
 * dimension of the output's shape (ndim of them; 0 where it broadcasts), as the output's
 * lie: its batch, then m unless a is 1-D, then n unless b is 1-D. */
static void along_output(tkh_plan *p, unsigned x, const int64_t *aligned, int ndim, int batch, int a_2d, int b_2d)
{
    p->stride[x][N_DIM] = b_2d ? aligned[ndim - 1] : 0;
    p->stride[x][M_DIM] = a_2d ? aligned[ndim - 1 - b_2d] : 0;
    for (int d = 0; d < batch; ++d) /* innermost first */
        p->stride[x][BATCH_DIM + d] = aligned[batch - 1 - d];
}

/* Extra input x (a column [n], a row [m], or an addend broadcast to the output's shape
 * 'want') placed along the plan; its shape checked. */
static tkh_status place_extra(const char *fn, tkhi_call *c, unsigned x, const int64_t *stride, const int64_t *want,
    int want_ndim, int batch, int a_2d, int b_2d)
{
    const tkh_kernel_info *k = c->kernel;
    const DLTensor *t = c->tensor[x];
    tkh_plan *p = &c->plan;
    const char *extent = tkhi_extent_of(&k->inputs[x]);
    char name[80], s1[200], s2[200];
    if (c->absent[x])
        return TKH_OK; /* its default: strides 0 */
    if (strcmp(extent, "mn") != 0) { /* 1-D along n or m */
        const int along_n = extent[0] == 'n';
        const int64_t size = along_n ? p->size[N_DIM] : p->size[M_DIM];
        if (t->ndim == 1 && t->shape[0] == size) {
            p->stride[x][along_n ? N_DIM : M_DIM] = stride[0];
            return TKH_OK;
        }
        tkhi_operand_of(c, x, name, sizeof name);
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s has shape %s: expected [%" PRId64 "], a %s along %s",
            fn, name, tkhi_format_dims(s1, sizeof s1, t->ndim, t->shape), size, along_n ? "column" : "row",
            along_n ? "n" : "m");
    }
    int64_t aligned[TKH_MAX_DIMS] = { 0 };
    int fits = t->ndim <= want_ndim;
    for (int d = 0; d < t->ndim && fits; ++d) {
        const int od = d + want_ndim - t->ndim;
        fits = t->shape[d] == want[od] || t->shape[d] == 1;
        aligned[od] = t->shape[d] == 1 ? 0 : stride[d];
    }
    if (!fits) {
        tkhi_operand_of(c, x, name, sizeof name);
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s has shape %s: expected one that broadcasts to the "
            "output's %s", fn, name, tkhi_format_dims(s1, sizeof s1, t->ndim, t->shape),
            tkhi_format_dims(s2, sizeof s2, want_ndim, want));
    }
    along_output(p, x, aligned, want_ndim, batch, a_2d, b_2d);
    return TKH_OK;
}

static tkh_status plan(const char *fn, tkhi_call *c, const tkh_tensor_args *args, int64_t (*stride)[TKH_MAX_DIMS])
{
    const tkh_kernel_info *k = c->kernel;
    const DLTensor *a = c->tensor[0], *b = c->tensor[1];
    const unsigned out = k->arity;
    char name[80], s1[200], s2[200];
    if (args->axis_count != 0)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: %s_%s is a matrix product, which takes no axes: got "
            "axis_count %u", fn, k->op, k->type, args->axis_count);
    for (unsigned x = 0; x < 2; ++x)
        if (c->tensor[x]->ndim == 0)
            return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s has no dimensions: a matrix product's operands "
                "have at least one (numpy.matmul refuses scalars)", fn, k->inputs[x].name);
    /* b [.., k, n] is a column when 1-D; b [.., n, k] (linear's weight) is a row of k then */
    const operand_view va = view_of(a, stride[0], 0);
    operand_view vb = view_of(b, stride[1], !k->b_nk);
    if (k->b_nk) { /* its rows are the product's columns */
        const operand_view t = vb;
        vb.rows = t.cols, vb.cols = t.rows, vb.row_stride = t.col_stride, vb.col_stride = t.row_stride;
    }
    const int64_t m = va.rows, kk = va.cols, n = vb.cols;
    if (vb.rows != kk)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensors %s %s and %s %s do not multiply: %s's k is %" PRId64
            " and %s's %" PRId64 " (%s)", fn, k->inputs[0].name, tkhi_format_dims(s1, sizeof s1, a->ndim, a->shape),
            k->inputs[1].name, tkhi_format_dims(s2, sizeof s2, b->ndim, b->shape), k->inputs[0].name, kk,
            k->inputs[1].name, vb.rows, k->b_nk ? "its last dimension, as linear's weight [n, k]"
            : "its second-to-last dimension, or its only one");
    /* the batch: both operands' leading dimensions, broadcast from the right */
    const int batch = va.batch > vb.batch ? va.batch : vb.batch;
    if (batch + 3 > TKH_MAX_DIMS)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: %d batch dimensions: expected at most %d", fn, batch,
            TKH_MAX_DIMS - 3);
    int64_t want[TKH_MAX_DIMS];
    int want_ndim = 0;
    for (int d = 0; d < batch; ++d) {
        const int da = d - (batch - va.batch), db = d - (batch - vb.batch);
        const int64_t sa = da >= 0 ? a->shape[da] : 1, sb = db >= 0 ? b->shape[db] : 1;
        if (sa != sb && sa != 1 && sb != 1)
            return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: the batch dimensions of %s %s and %s %s do not "
                "broadcast: %" PRId64 " against %" PRId64, fn, k->inputs[0].name, tkhi_format_dims(s1, sizeof s1,
                a->ndim, a->shape), k->inputs[1].name, tkhi_format_dims(s2, sizeof s2, b->ndim, b->shape), sa, sb);
        want[want_ndim++] = sa == 1 ? sb : sa;
    }
    if (a->ndim > 1)
        want[want_ndim++] = m;
    if (b->ndim > 1)
        want[want_ndim++] = n;
    tkh_plan *p = &c->plan;
    p->size[K_DIM] = kk;
    p->size[N_DIM] = n;
    p->size[M_DIM] = m;
    for (unsigned x = 2; x < k->arity; ++x) {
        const tkh_status st = place_extra(fn, c, x, stride[x], want, want_ndim, batch, a->ndim > 1, b->ndim > 1);
        if (st != TKH_OK)
            return st;
    }
    if (tkhi_outputs_shape(c, want_ndim, want))
        return TKH_OK;
    if (tkhi_output_unlike(c, want_ndim, want) >= 0) {
        const DLTensor *o = c->tensor[out];
        tkhi_operand_of(c, out, name, sizeof name);
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s has shape %s: expected %s (numpy.matmul's: the "
            "broadcast batch, then m unless %s is 1-D, then n unless %s is 1-D)", fn, name,
            tkhi_format_dims(s1, sizeof s1, o->ndim, o->shape), tkhi_format_dims(s2, sizeof s2, want_ndim, want),
            k->inputs[0].name, k->inputs[1].name);
    }
    c->ndim = want_ndim;
    memcpy(c->shape, want, sizeof(int64_t) * (size_t)want_ndim);
    p->stride[0][K_DIM] = va.col_stride;
    p->stride[0][M_DIM] = va.row_stride;
    p->stride[1][K_DIM] = vb.row_stride;
    p->stride[1][N_DIM] = vb.col_stride;
    along_output(p, out, stride[out], want_ndim, batch, a->ndim > 1, b->ndim > 1);
    p->count = n * m;
    for (int d = 0; d < batch; ++d) { /* innermost first */
        const int from_end = batch - 1 - d, pd = BATCH_DIM + d;
        const int da = va.batch - 1 - d, db = vb.batch - 1 - d;
        p->size[pd] = want[from_end];
        p->count *= want[from_end];
        p->stride[0][pd] = da >= 0 && a->shape[da] != 1 ? stride[0][da] : 0;
        p->stride[1][pd] = db >= 0 && b->shape[db] != 1 ? stride[1][db] : 0;
    }
    p->reduce_count = kk;
    p->reduced = 1;
    p->ndim = tkhi_plan_merge(p, c->arrays, BATCH_DIM, BATCH_DIM + batch);
    p->mode = TKH_PLAN_ROWS;
    c->flat = 0;
    return TKH_OK;
}

/* Slices of k where the output's tiles are too few for the device (m of a few hundred rows
 * against a long k: a transformer layer's m = 128): at most TKH_PLAN_MAX_SPLIT, each at least
 * TKHI_SLICE_LEAST long and a whole number of TKHI_SLICE_STEP (every kernel's k tiles whole, the
 * slices' offsets in whole 16-byte chunks), all alike (k a multiple of their count), enough
 * for about one tile of 128 x 128 a compute unit: the partials' round trip through memory
 * costs more than the idle units (docs/matmul.md: on an H100, linear m = 128 with the wgmma
 * kernel's 128 x 256 tiles ran fastest at about half a tile a multiprocessor). */
#define TKHI_SLICE_STEP 128 /* the wgmma kernel's stage: 128 bytes along k, of i8 128 elements */
#define TKHI_SLICE_LEAST 256

static int slices(const tkh_context *ctx, const tkh_plan *p, int64_t tiles)
{
    const int64_t k = p->size[K_DIM], units = ctx->device.compute_units;
    if (p->size[M_DIM] <= TKH_SMALL_M_ROWS || p->ndim >= TKH_MAX_DIMS || units <= 0 || tiles <= 0)
        return 1;
    int64_t s = units / tiles;
    for (s = s < TKH_PLAN_MAX_SPLIT ? s : TKH_PLAN_MAX_SPLIT; s > 1; --s)
        if (k % (s * TKHI_SLICE_STEP) == 0 && k / s >= TKHI_SLICE_LEAST)
            break;
    return s > 1 ? (int)s : 1;
}

/* Tiles of 128 x 128 outputs (the FMA kernel's), a block of 256 threads each, over the
 * batch too; the launcher's matrix-instruction kernel takes fewer of them where it runs.
 * Where they are too few, k in slices (the launcher's partials: the kernel's scratch_size
 * bytes an output and slice). And the sums the oracle's bound assumes for p on this device
 * (c->nearest): a split adds split - 1 roundings to nearest to each sum of chunk products,
 * within either bound (tkh_sum_steps) for k = split * chunk. */
static void geometry(const tkh_context *ctx, tkhi_call *c, tkh_plan *p, const void *input, unsigned *grid,
    unsigned *block)
{
    (void)input;
    c->nearest = c->kernel->nearest != NULL && c->kernel->nearest(p);
    const int64_t plane = p->size[N_DIM] * p->size[M_DIM];
    const int64_t tiles = (p->size[N_DIM] + 127) / 128 * ((p->size[M_DIM] + 127) / 128) * (plane ? p->count / plane : 0);
    p->split = c->kernel->scratch_size > 0 ? slices(ctx, p, tiles) : 1;
    p->chunk = p->size[K_DIM] / p->split;
    *block = 256;
    *grid = (unsigned)(tiles < 1 ? 1 : tiles > TKHI_MAX_GRID ? TKHI_MAX_GRID : tiles);
}

/* Outputs [first, first + count) (or the sampled ones), row-major in the output's index
 * space: (batch, m, n), each run along one row of the product checked by the generated
 * check of the kernel. */
tkh_status tkhi_matmul_check(const tkhi_call *c, unsigned char *const *base, const int64_t (*stride)[TKH_MAX_DIMS],
    const void *const *scalars, int64_t first, int64_t count, const int64_t *samples, tkhi_oracle_part *part)
{
    const tkh_kernel_info *k = c->kernel;
    const tkh_plan *p = &c->plan;
    const unsigned out = k->arity;
    const int64_t n = p->size[N_DIM], m = p->size[M_DIM];
    const void *columns[TKH_MAX_INPUTS] = { NULL };
    int64_t column_n[TKH_MAX_INPUTS] = { 0 };
    for (int64_t s = 0; s < count && part->bad == SIZE_MAX;) {
        const int64_t at = samples ? samples[s] : first + s;
        const int64_t j = at % n, row = at / n, i = row % m, batch = row / m;
        const int64_t run = samples ? 1 : (count - s < n - j ? count - s : n - j);
        int64_t off[TKH_MAX_ARRAYS];
        for (unsigned x = 0; x < c->arrays; ++x)
            off[x] = tkhi_offset_at(p, BATCH_DIM, p->ndim, stride[x], batch) + i * stride[x][M_DIM]
                + j * stride[x][N_DIM];
        for (unsigned x = 2; x < k->arity; ++x) {
            columns[x - 2] = c->absent[x] ? NULL : base[x] + off[x] * (int64_t)c->size[x];
            column_n[x - 2] = stride[x][N_DIM];
        }
        const double before = part->note.worst;
        const size_t ok = k->check_product(base[0] + off[0] * (int64_t)c->size[0], stride[0][K_DIM],
            base[1] + off[1] * (int64_t)c->size[1], stride[1][K_DIM], stride[1][N_DIM], columns, column_n,
            base[out] + off[out] * (int64_t)c->size[out], stride[out][N_DIM], scalars, (size_t)p->reduce_count,
            c->nearest, (size_t)run, &part->note);
        if (part->note.worst > before) /* the check names it within the run */
            part->note.worst_index = (size_t)(at + (int64_t)part->note.worst_index);
        if (ok < (size_t)run) {
            part->compared += ok + 1;
            part->bad = (size_t)(at + (int64_t)ok);
        } else
            part->compared += (size_t)run;
        s += run;
    }
    return TKH_OK;
}

static void describe(const tkhi_call *c, tkh_report *report)
{
    const tkh_plan *p = &c->plan;
    const int64_t plane = p->size[N_DIM] * p->size[M_DIM];
    tkhi_evidence(report, "matrix product: %" PRId64 " product%s of [%" PRId64 ", %" PRId64 "] x [%" PRId64 ", %"
        PRId64 "]%s, each output a sum of %" PRId64 " products", plane ? p->count / plane : 0,
        plane && p->count / plane == 1 ? "" : "s", p->size[M_DIM], p->size[K_DIM], p->size[K_DIM], p->size[N_DIM],
        c->kernel->b_nk ? " (b given as [n, k])" : "", p->size[K_DIM]);
}

static const char *layout(const tkhi_call *c)
{
    if (c->plan.size[M_DIM] >= 1 && c->plan.size[M_DIM] <= TKH_SMALL_M_ROWS)
        return ", the small-m kernel (at most 16 rows: a block a few columns over the whole of k, on fused "
               "multiply-adds, or mma.sync for f16 and bf16 on NVIDIA)";
    return ", tiles of 128 x 128 outputs (fused multiply-adds, f64 mma.sync, MFMA) or 128 x 256 (16-bit and i8 "
           "mma.sync, wgmma)";
}

static int drops(const tkh_kernel_info *k)
{
    (void)k;
    return 1;
}

const tkhi_shape tkhi_matmul_shape = { TKHI_FLAT_PRODUCT, 1, drops, plan, geometry, NULL, tkhi_matmul_check, describe,
    layout, tkhi_matmul_project_begin, tkhi_matmul_project, tkhi_matmul_project_device };
