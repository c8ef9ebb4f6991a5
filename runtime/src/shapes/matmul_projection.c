/* The projected check of matrix products (TKH_ORACLE_PROJECTED, docs/matmul.md). Each row's
 * outputs are summed over blocks of BLOCK columns with weights w_j (floats: random signs;
 * integers: random odd numbers, modulo 2^bits) and compared with the same sum worked out
 * from the inputs, sum over q of a[i, q] y[q] (plus the weighted sum of the one extra input:
 * a bias, a row or an addend), where y[q] = sum over the block of w_j b[q, j] is made once a
 * call for every block and batch, on the crew. That is O(k) a block of a row instead of O(k)
 * an output; a row's blocks are summed side by side (vectorized), and up to ROWS rows
 * together, so that each y is read once for them. Floats agree within the sum of the block's
 * outputs' bounds (as the full check's, summed in |a| z, z the block's sums of |b|) plus the
 * host's own rounding in double; a block that does not, or that a range cuts, is recomputed
 * in full, whose verdict stands, so a correct result never fails. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shapes.h"
#include "tokitai_hip/codegen/projection.h"

enum { K_DIM = 0, N_DIM = 1, M_DIM = 2, BATCH_DIM = 3 };
#define BLOCK TKH_PROJECTION_BLOCK
/* Blocks of one row summed side by side, and rows summed together (where a row has no
 * more than SIDE blocks). */
#define SIDE 64
#define ROWS 8
/* The most bytes of block sums a call may keep: past it, checked as under full. */
#define MOST_BYTES ((size_t)256 << 20)

typedef struct block_sums {
    int integer;
    int64_t k, n, m, batches, blocks;
    double *y, *z;               /* floats: [batch][q][block] */
    uint64_t *yi;                /* integers: [batch][q][block], modulo 2^64 */
    int8_t *sign;                /* floats: column j's */
    uint64_t *weight;            /* integers: column j's, odd */
    tkh_projection_args cmp;     /* the comparison's constants (mask, or the floats' units) */
    const tkh_scalar_type *ta, *tb, *tout, *textra; /* textra: the one extra input's */
} block_sums;

static void release(void *state)
{
    block_sums *pr = state;
    if (pr == NULL)
        return;
    free(pr->y);
    free(pr->z);
    free(pr->yi);
    free(pr->sign);
    free(pr->weight);
    free(pr);
}

/* The weights' seed of a call under 'policy' (the report states policy->seed). */
static uint64_t projection_seed(const tkh_oracle_policy *policy)
{
    return policy->seed ^ 0x70726f6a656374ull; /* "project" */
}

/* Integer element p of type t sign-extended (as bits modulo 2^64); floats: tkhi_real. */
static uint64_t whole(const tkh_scalar_type *t, const unsigned char *p)
{
    uint64_t u = 0;
    memcpy(&u, p, t->size);
    if (t->family == TKH_SCALAR_SIGNED && t->bits < 64 && ((u >> (t->bits - 1)) & 1))
        u |= ~(uint64_t)0 << t->bits;
    return u;
}

/* The unit roundoff and the subnormals' spacing of float type t. */
static void units(const tkh_scalar_type *t, double *u, double *tiny)
{
    *u = ldexp(1, -t->mantissa);
    *tiny = ldexp(1, t->emin - t->mantissa + 1);
}

/* What a block's comparison needs beside its sums, into a: for integer outputs the
 * congruence mask (2^bits - 1, the narrower of the sum's and the output's bits), for floats
 * the unit roundoffs and subnormal spacings of the accumulator and the output. */
static void comparison_constants(const tkh_scalar_type *acc, const tkh_scalar_type *out, tkh_projection_args *a)
{
    if (out->to_double == NULL) {
        const unsigned bits = acc->bits < out->bits ? acc->bits : out->bits;
        a->mask = bits >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << bits) - 1;
    } else {
        units(acc, &a->u_acc, &a->tiny_acc);
        units(out, &a->u_out, &a->tiny_out);
    }
}

/* The block sums of b's rows [lo, hi) of batch-and-row index (bi k + q). */
typedef struct sums_job {
    const tkhi_call *c;
    block_sums *pr;
    unsigned char *b;
    const int64_t *stride;
} sums_job;

static void sums_part(void *arg, unsigned part, unsigned parts)
{
    const sums_job *job = arg;
    block_sums *pr = job->pr;
    const tkh_plan *p = &job->c->plan;
    const int64_t size = (int64_t)job->c->size[1], *st = job->stride;
    size_t lo, hi;
    tkhi_split((size_t)(pr->batches * pr->k), (size_t)(pr->batches * pr->k), part, parts, &lo, &hi);
    for (size_t r = lo; r < hi; ++r) {
        const int64_t bi = (int64_t)r / pr->k, q = (int64_t)r % pr->k;
        const unsigned char *row = job->b + (tkhi_offset_at(p, BATCH_DIM, p->ndim, st, bi) + q * st[K_DIM]) * size;
        for (int64_t blk = 0; blk < pr->blocks; ++blk) {
            const int64_t end = (blk + 1) * BLOCK < pr->n ? (blk + 1) * BLOCK : pr->n;
            uint64_t si = 0;
            double sy = 0, sz = 0;
            for (int64_t j = blk * BLOCK; j < end; ++j) {
                const unsigned char *x = row + j * st[N_DIM] * size;
                if (pr->integer)
                    si += pr->weight[j] * whole(pr->tb, x);
                else {
                    const double v = tkhi_real(pr->tb, x);
                    sy += pr->sign[j] * v;
                    sz += fabs(v);
                }
            }
            if (pr->integer)
                pr->yi[r * (size_t)pr->blocks + (size_t)blk] = si;
            else {
                pr->y[r * (size_t)pr->blocks + (size_t)blk] = sy;
                pr->z[r * (size_t)pr->blocks + (size_t)blk] = sz;
            }
        }
    }
}

tkh_status tkhi_matmul_project_begin(const tkhi_call *c, tkhi_oracle *o, unsigned char *const *base,
    const int64_t (*stride)[TKH_MAX_DIMS])
{
    const tkh_kernel_info *k = c->kernel;
    const tkh_plan *p = &c->plan;
    if (!k->projectable || k->accumulator == NULL)
        return TKH_OK;
    const int64_t kk = p->size[K_DIM], n = p->size[N_DIM], m = p->size[M_DIM];
    const int64_t batches = p->count / (n * m), blocks = (n + BLOCK - 1) / BLOCK;
    const tkh_scalar_type *acc = tkh_scalar_type_find(k->accumulator);
    block_sums *pr = calloc(1, sizeof *pr);
    if (pr == NULL)
        return TKH_ERR_HOST_ALLOC;
    *pr = (block_sums){ .k = kk, .n = n, .m = m, .batches = batches, .blocks = blocks,
        .ta = tkh_scalar_type_find(k->inputs[0].type), .tb = tkh_scalar_type_find(k->inputs[1].type),
        .tout = tkh_scalar_type_find(k->outputs[0].type),
        .textra = k->arity > 2 ? tkh_scalar_type_find(k->inputs[2].type) : NULL };
    pr->integer = pr->ta != NULL && pr->ta->to_double == NULL;
    const size_t per = pr->integer ? sizeof(uint64_t) : 2 * sizeof(double);
    const double entries = (double)batches * (double)blocks * (double)kk;
    if (acc == NULL || pr->ta == NULL || pr->tb == NULL || pr->tout == NULL || entries * (double)per > (double)MOST_BYTES
        || pr->integer != (pr->tout->to_double == NULL) || (k->arity > 2 && pr->textra == NULL)
        || (pr->textra != NULL && pr->integer != (pr->textra->to_double == NULL))) {
        free(pr); /* checked as under full */
        return TKH_OK;
    }
    const size_t count = (size_t)entries > 0 ? (size_t)entries : 1;
    const uint64_t seed = projection_seed(&o->policy);
    comparison_constants(acc, pr->tout, &pr->cmp);
    if (pr->integer) {
        pr->yi = malloc(count * sizeof(uint64_t));
        pr->weight = malloc((size_t)n * sizeof(uint64_t));
    } else {
        pr->y = malloc(count * sizeof(double));
        pr->z = malloc(count * sizeof(double));
        pr->sign = malloc((size_t)n);
    }
    if (pr->integer ? pr->yi == NULL || pr->weight == NULL : pr->y == NULL || pr->z == NULL || pr->sign == NULL) {
        release(pr);
        return TKH_ERR_HOST_ALLOC;
    }
    for (int64_t j = 0; j < n; ++j) {
        const uint64_t r = tkh_projection_weight(seed, j);
        if (pr->integer)
            pr->weight[j] = r | 1;
        else
            pr->sign[j] = (int8_t)(r & 1 ? 1 : -1);
    }
    sums_job job = { c, pr, base[1], stride[1] };
    if (o->crew != NULL)
        tkhi_crew_run(o->crew, sums_part, &job);
    else
        sums_part(&job, 0, 1);
    o->projection = pr;
    o->release = release;
    o->grain = (size_t)n * (blocks <= SIDE ? ROWS : 1); /* whole rows, ROWS of them together */
    return TKH_OK;
}

/* Where one row's arrays start (column 0), and element j of array x. */
typedef struct row_at {
    const tkhi_call *c;
    unsigned char *const *base;
    const int64_t (*stride)[TKH_MAX_DIMS];
    int64_t off[TKH_MAX_ARRAYS];
    int64_t bi;
} row_at;

static const unsigned char *at_column(const row_at *ra, unsigned x, int64_t j)
{
    return ra->base[x] + (ra->off[x] + j * ra->stride[x][N_DIM]) * (int64_t)ra->c->size[x];
}

/* The inputs' side of blocks [b0, b1) (at most SIDE) of 'rows' rows of one batch (at most
 * ROWS): for each, sum over q of a[i, q] y[q], and for floats sum over q of |a[i, q]| z[q].
 * The rows go together so that each y[q] and z[q] is read once for all of them; the loop is
 * cloned for AVX-512 and AVX2 as the generated checks' are (TKH_CHECK_CLONES). */
typedef struct sides {
    double rhs[ROWS][SIDE], mag[ROWS][SIDE];
    uint64_t rhs_i[ROWS][SIDE];
} sides;

TKH_CHECK_CLONES static void inputs_side(const row_at *ra, int rows, const block_sums *pr, int64_t b0, int64_t b1,
    sides *sd)
{
    const int64_t w = b1 - b0, sa = (int64_t)ra->c->size[0], a_k = ra->stride[0][K_DIM] * sa;
    const size_t row0 = (size_t)(ra->bi * pr->k) * (size_t)pr->blocks + (size_t)b0;
    const unsigned char *a[ROWS];
    for (int r = 0; r < rows; ++r) {
        a[r] = ra[r].base[0] + ra[r].off[0] * sa;
        for (int64_t t = 0; t < w; ++t)
            sd->rhs[r][t] = sd->mag[r][t] = 0, sd->rhs_i[r][t] = 0;
    }
    for (int64_t q = 0; q < pr->k; ++q) {
        const size_t e = row0 + (size_t)q * (size_t)pr->blocks;
        if (pr->integer) {
            const uint64_t *y = pr->yi + e;
            for (int r = 0; r < rows; ++r) {
                const uint64_t v = whole(pr->ta, a[r] + q * a_k);
                for (int64_t t = 0; t < w; ++t)
                    sd->rhs_i[r][t] += v * y[t];
            }
        } else {
            const double *y = pr->y + e, *z = pr->z + e;
            for (int r = 0; r < rows; ++r) {
                const double v = tkhi_real(pr->ta, a[r] + q * a_k), av = fabs(v);
                for (int64_t t = 0; t < w; ++t) {
                    sd->rhs[r][t] += v * y[t];
                    sd->mag[r][t] += av * z[t];
                }
            }
        }
    }
}

/* Whether columns [j0, j1) of the row (one whole block; 'index': the call's index of j0)
 * agree with their projection, given the inputs' side. Floats add to part's worst share of
 * the bound and its threshold (twice the bound: one output wrong by more than that makes the
 * sums differ by more than the bound, whatever the others' errors). */
static int block_agrees(const row_at *ra, const block_sums *pr, int64_t j0, int64_t j1, double rhs, double mag,
    uint64_t rhs_i, int64_t index, tkhi_oracle_part *part)
{
    const tkhi_call *c = ra->c;
    const unsigned out = c->kernel->arity;
    const int extra = out > 2 && !c->absent[2];
    if (pr->integer) {
        uint64_t lhs = 0;
        for (int64_t j = j0; j < j1; ++j) {
            lhs += pr->weight[j] * whole(pr->tout, at_column(ra, out, j));
            if (extra)
                rhs_i += pr->weight[j] * whole(pr->textra, at_column(ra, 2, j));
        }
        return ((lhs - rhs_i) & pr->cmp.mask) == 0;
    }
    double lhs = 0, sabs = 0, cabs = 0;
    for (int64_t j = j0; j < j1; ++j) {
        const double v = tkhi_real(pr->tout, at_column(ra, out, j));
        lhs += pr->sign[j] * v;
        sabs += fabs(v);
        if (extra) {
            const double b = tkhi_real(pr->textra, at_column(ra, 2, j));
            rhs += pr->sign[j] * b;
            cabs += fabs(b);
        }
    }
    const double bound = tkh_projection_bound(pr->k, c->nearest, j1 - j0, pr->cmp.u_acc, pr->cmp.tiny_acc, pr->cmp.u_out, pr->cmp.tiny_out,
        lhs, rhs, mag, sabs, cabs);
    if (bound < 0)
        return 0; /* special values, or a bound past use: recomputed in full */
    const double diff = fabs(lhs - rhs);
    if (bound > 0 && diff / bound > part->note.worst) {
        part->note.worst = diff / bound;
        part->note.worst_index = (size_t)index;
    }
    if (2 * bound > part->threshold)
        part->threshold = 2 * bound;
    return diff <= bound;
}

/* Columns [j0, j1) of a row in full, as the full check's. */
static void in_full(const tkhi_call *c, unsigned char *const *base, const int64_t (*stride)[TKH_MAX_DIMS],
    const void *const *scalars, int64_t index, int64_t count, tkhi_oracle_part *part)
{
    if (count > 0 && part->bad == SIZE_MAX && part->failed == TKH_OK)
        part->failed = tkhi_matmul_check(c, base, stride, scalars, index, count, NULL, part);
}

tkh_status tkhi_matmul_project(const tkhi_call *c, const void *state, unsigned char *const *base,
    const int64_t (*stride)[TKH_MAX_DIMS], const void *const *scalars, int64_t first, int64_t count,
    tkhi_oracle_part *part)
{
    const block_sums *pr = state;
    const tkh_plan *p = &c->plan;
    const int64_t n = pr->n, m = pr->m;
    sides *sd = malloc(sizeof *sd);
    if (sd == NULL)
        return part->failed = TKH_ERR_HOST_ALLOC;
    for (int64_t s = 0; s < count && part->bad == SIZE_MAX && part->failed == TKH_OK;) {
        const int64_t at = first + s, j0 = at % n, row = at / n, i = row % m;
        const int64_t j1 = count - s < n - j0 ? j0 + (count - s) : n, start = at - j0;
        /* whole rows of one batch go together, up to ROWS of them */
        int rows = 1;
        while (j0 == 0 && j1 == n && pr->blocks <= SIDE && rows < ROWS && (rows + 1) * n <= count - s && i + rows < m)
            ++rows;
        row_at ra[ROWS];
        for (int r = 0; r < rows; ++r) {
            ra[r] = (row_at){ .c = c, .base = base, .stride = stride, .bi = row / m };
            for (unsigned x = 0; x < c->arrays; ++x)
                ra[r].off[x] = tkhi_offset_at(p, BATCH_DIM, p->ndim, stride[x], ra[r].bi) + (i + r) * stride[x][M_DIM];
        }
        /* the blocks whole in [j0, j1); the columns before and after them in full */
        const int64_t b0 = (j0 + BLOCK - 1) / BLOCK, b1 = j1 == n ? pr->blocks : j1 / BLOCK;
        if (b0 >= b1)
            in_full(c, base, stride, scalars, at, j1 - j0, part);
        else {
            in_full(c, base, stride, scalars, at, b0 * BLOCK - j0, part);
            for (int64_t g0 = b0; g0 < b1 && part->bad == SIZE_MAX && part->failed == TKH_OK; g0 += SIDE) {
                const int64_t g1 = b1 - g0 < SIDE ? b1 : g0 + SIDE;
                inputs_side(ra, rows, pr, g0, g1, sd);
                for (int r = 0; r < rows; ++r) /* in order: the first output that differs is found first */
                    for (int64_t blk = g0; blk < g1 && part->bad == SIZE_MAX && part->failed == TKH_OK; ++blk) {
                        const int64_t c0 = blk * BLOCK, c1 = c0 + BLOCK < n ? c0 + BLOCK : n, from = start + r * n;
                        if (block_agrees(&ra[r], pr, c0, c1, sd->rhs[r][blk - g0], sd->mag[r][blk - g0],
                                sd->rhs_i[r][blk - g0], from + c0, part)) {
                            part->compared += (size_t)(c1 - c0);
                            part->projected += (size_t)(c1 - c0);
                        } else /* one that differs: the full check's verdict stands */
                            in_full(c, base, stride, scalars, from + c0, c1 - c0, part);
                    }
            }
            if (b1 * BLOCK < j1)
                in_full(c, base, stride, scalars, start + b1 * BLOCK, j1 - b1 * BLOCK, part);
        }
        s += rows > 1 ? rows * n : j1 - j0;
    }
    free(sd);
    return part->failed;
}

size_t tkhi_matmul_project_device(const tkhi_call *c, const tkh_oracle_policy *policy, tkh_projection_args *args)
{
    const tkh_kernel_info *k = c->kernel;
    const tkh_plan *p = &c->plan;
    if (k->project_device == NULL || !k->projectable || p->count <= 0)
        return 0;
    const tkh_scalar_type *acc = tkh_scalar_type_find(k->accumulator), *out = tkh_scalar_type_find(k->outputs[0].type);
    if (acc == NULL || out == NULL)
        return 0;
    const int64_t kk = p->size[K_DIM], n = p->size[N_DIM], m = p->size[M_DIM], batch = p->count / (n * m);
    const int64_t blocks = (n + BLOCK - 1) / BLOCK;
    /* the tiles of the kernel that sums a's rows against b's sums, each split over k into
     * enough pieces of at least 64 that about 512 run */
    const int64_t tiles = tkh_projection_tiles(batch, m, blocks), most = (kk + 63) / 64;
    int64_t chunks = (512 + tiles - 1) / tiles;
    chunks = chunks < most ? chunks : most;
    chunks = chunks > 1 ? chunks : 1;
    /* b's sums (y and z) for each row of k, the chunks' partial sums of each output row, and
     * the n columns' weights */
    const double entries = ((double)batch * (double)kk + (double)chunks * (double)batch * (double)m) * (double)blocks;
    const double bytes = entries * 16 + (double)n * 8;
    if (bytes > (double)MOST_BYTES)
        return 0;
    *args = (tkh_projection_args){ .seed = projection_seed(policy), .blocks = blocks, .chunks = chunks,
        .extra = k->arity > 2 && !c->absent[2], .nearest = c->nearest };
    comparison_constants(acc, out, args);
    return (size_t)bytes;
}
