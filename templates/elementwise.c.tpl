/* $(do_not_edit) */
/* Host entry points of $(k.op.name) over $(k.type.name) and the oracle check they run. */
#include "$(ops_header)"
#include "$(k.oracle_header)"
#include "$(compare_header)"

extern TKH_HIDDEN const tkh_kernel_info $(k.info);

@ local S, arity, t = k.type.c, k.op.arity, k.type
@ local elems, params, wide = {}, {}, {}
@ for i = 1, arity do
@   elems[i] = "x[" .. (i - 1) .. "][i]"
@   params[i] = "const " .. S .. " *" .. k.params[i]
@   wide[i] = "wide[" .. (i - 1) .. "][i]"
@ end
enum { BLOCK = 256 };
@ if k.compare == "ulp" then
@   local R = t.reference
@   local refs, measure_params, measure_args, wide_blocks, x_blocks = {}, {}, {}, {}, {}
@   for i = 1, arity do
@     refs[i] = "(" .. R .. ")" .. load(t, "x[" .. (i - 1) .. "][i]")
@     measure_params[i] = "const " .. t.compute .. " *restrict in" .. (i - 1)
@     measure_args[i] = "(" .. R .. ")in" .. (i - 1) .. "[i]"
@     wide_blocks[i] = "wide[" .. (i - 1) .. "]"
@     x_blocks[i] = "x[" .. (i - 1) .. "] + base"
@   end
/* The bound for the platform built for, from the registry (the vendors' libraries differ). */
#define BOUND ($(k.info).ulp_bound)

/* Says in 'note' how output i differs: its ulp error (from the checking loop), the
 * inputs and the reference. */
static void describe_difference(const $(S) *const *x, const $(S) *got, size_t i, $(R) error,
    tkh_check_note *note)
{
    const $(R) want = $(k.reference_fn)($(table.concat(refs, ", ")));
    char g[64], args[$(arity) * 66], e[48];
    const $(S) operands[$(arity)] = { $(table.concat(elems, ", ")) };
    $(prefix)_format_$(t.name)(g, sizeof g, got[i]);
    $(prefix)_format_list_$(t.name)(args, sizeof args, operands, $(arity));
    if (isinf(error))
        $(prefix)_detail(e, sizeof e, "a special value out of rule");
    else
        $(prefix)_detail(e, sizeof e, "%.3Lg ulps", (long double)error);
    $(prefix)_detail(note->detail, sizeof note->detail,
        "got %s, expected within %g ulps of %.21Lg = $(k.op.name)(%s): %s", g,
        (double)BOUND, (long double)want, args, e);
    note->error = (double)error;
}

/* error[i] = the ulp error of got[i] against the reference of the inputs, a loop without
 * branches that the compiler vectorizes with the reference (with TKH_VECTOR_REFERENCE,
 * its functions too: tokitai_hip/reference_simd.h). Not inlined: inside compare_blocks,
 * beside the conversions of 16-bit blocks, GCC 12 gives up on the loop. */
TKH_CHECK_CLONES __attribute__((noinline)) static void measure(
    $(table.concat(measure_params, ", ")), const $(t.compute) *got, $(R) *restrict error, size_t len)
{
    for (size_t i = 0; i < len; ++i)
        error[i] = $(prefix)_ulp_error_$(t.name)(got[i], $(k.reference_fn)($(table.concat(measure_args, ", "))));
}

/* Measures each output against the reference in $(R), block by block (measure), then
 * takes the block's largest error and scans the block where it is out of bound or a new
 * largest. Returns the first difference, or n. One copy per x86-64 level
 * (TKH_CHECK_CLONES), static as below. */
TKH_CHECK_CLONES static size_t compare_blocks(const $(S) *const *x, const $(S) *got, size_t n,
    tkh_check_note *note)
{
    $(R) worst = ($(R))note->worst;
    for (size_t base = 0; base < n; base += BLOCK) {
        const size_t len = n - base < BLOCK ? n - base : BLOCK;
        $(R) error[BLOCK];
@   if t.load then
        $(t.compute) wide[$(arity)][BLOCK], got_wide[BLOCK];
        for (int j = 0; j < $(arity); ++j)
            $(t.load)_n(x[j] + base, wide[j], len);
        $(t.load)_n(got + base, got_wide, len);
        measure($(table.concat(wide_blocks, ", ")), got_wide, error, len);
@   else
        measure($(table.concat(x_blocks, ", ")), got + base, error, len);
@   end
        /* (Not in measure's loop: with a maximum in it, that loop does not vectorize.) */
        const $(R) block_worst = $(prefix)_largest_error_$(t.name)(error, len);
        if (!(block_worst <= BOUND)) {
            size_t i = 0;
            while (error[i] <= BOUND)
                ++i;
            describe_difference(x, got, base + i, error[i], note);
            note->worst = (double)worst; /* the blocks before this one */
            return base + i;
        }
        if (block_worst > worst) { /* where: the first output of the block with that error */
            size_t i = 0;
            while (error[i] != block_worst)
                ++i;
            note->worst_index = base + i;
            worst = block_worst;
        }
    }
    note->worst = (double)worst;
    return n;
}
@ else

/* The first index in [from, to) where the device output differs from the oracle, or 'to';
 * for a difference, 'detail' says what differed. */
static size_t first_difference(const $(S) *const *x, const $(S) *got, size_t from, size_t to,
    tkh_check_note *note)
{
    for (size_t i = from; i < to; ++i) {
        const $(S) want = $(k.oracle)($(table.concat(elems, ", ")));
        if (!$(prefix)_same_$(t.name)(got[i], want)) {
            char g[64], w[64], args[$(arity) * 66];
            const $(S) operands[$(arity)] = { $(table.concat(elems, ", ")) };
            $(prefix)_format_$(t.name)(g, sizeof g, got[i]);
            $(prefix)_format_$(t.name)(w, sizeof w, want);
            $(prefix)_format_list_$(t.name)(args, sizeof args, operands, $(arity));
            $(prefix)_detail(note->detail, sizeof note->detail, "got %s, expected %s = $(k.op.name)(%s)", g, w, args);
            return i;
        }
    }
    return to;
}

/* Compares the device output with the oracle. Each block of BLOCK elements first passes
 * a branch-free test that the compiler vectorizes; only a block that fails it is searched
 * for its first difference. Returns that index, or n. Compiled once per x86-64 level
 * (TKH_CHECK_CLONES); static, so that no copy is seen outside this file. */
TKH_CHECK_CLONES static size_t compare_blocks(const $(S) *const *x, const $(S) *got, size_t n,
    tkh_check_note *note)
{
    for (size_t base = 0; base < n; base += BLOCK) {
        const size_t len = n - base < BLOCK ? n - base : BLOCK;
        int differs = 0;
@   if t.load then
        /* $(t.name) converts to and from $(t.compute) a block at a time. */
        $(t.compute) wide[$(arity)][BLOCK], result[BLOCK];
        $(S) want[BLOCK];
        for (int j = 0; j < $(arity); ++j)
            $(t.load)_n(x[j] + base, wide[j], len);
        for (size_t i = 0; i < len; ++i)
            result[i] = $(k.oracle)_wide($(table.concat(wide, ", ")));
        $(t.store)_n(result, want, len);
        for (size_t i = 0; i < len; ++i)
            differs |= !$(prefix)_same_$(t.name)(got[base + i], want[i]);
@   else
        for (size_t i = base; i < base + len; ++i)
            differs |= !$(prefix)_same_$(t.name)(got[i], $(k.oracle)($(table.concat(elems, ", "))));
@   end
        if (differs) { /* the element-by-element oracle has the last word */
            const size_t bad = first_difference(x, got, base, base + len, note);
            if (bad < base + len)
                return bad;
        }
    }
    return n;
}
@ end

TKH_HIDDEN size_t $(k.check)(const void *const *inputs, const void *out, size_t n,
    unsigned grid, unsigned block, tkh_check_note *note)
{
    (void)grid;
    (void)block;
    const $(S) *x[$(arity)];
    for (int j = 0; j < $(arity); ++j)
        x[j] = inputs[j];
    return compare_blocks(x, out, n, note);
}

tkh_status $(k.entry)(tkh_context *ctx, $(table.concat(params, ", ")), $(S) *out, size_t n,
    tkh_report *report)
{
    const void *inputs[$(arity)] = { $(table.concat(k.params, ", ")) };
    return tkh_kernel_run(ctx, &$(k.info), inputs, $(arity), out, n, report);
}

tkh_status $(k.device_entry)(tkh_context *ctx, $(table.concat(params, ", ")), $(S) *out,
    size_t n, tkh_stream stream)
{
    const void *inputs[$(arity)] = { $(table.concat(k.params, ", ")) };
    return tkh_kernel_launch(ctx, &$(k.info), inputs, $(arity), out, n, stream);
}
