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

/* The first index in [from, to) where the device output differs from the oracle, or 'to';
 * for a difference, 'detail' says what differed. */
static size_t first_difference(const $(S) *const *x, const $(S) *got, size_t from, size_t to,
    char *detail, size_t detail_size)
{
    for (size_t i = from; i < to; ++i) {
        const $(S) want = $(k.oracle)($(table.concat(elems, ", ")));
        if (!$(prefix)_same_$(t.name)(got[i], want)) {
            char g[64], w[64], args[$(arity) * 66] = "";
            $(prefix)_format_$(t.name)(g, sizeof g, got[i]);
            $(prefix)_format_$(t.name)(w, sizeof w, want);
            for (int j = 0, len = 0; j < $(arity); ++j) {
                char v[64];
                $(prefix)_format_$(t.name)(v, sizeof v, x[j][i]);
                len += snprintf(args + len, sizeof args - (size_t)len, "%s%s", j ? ", " : "", v);
            }
            snprintf(detail, detail_size, "got %s, expected %s = $(k.op.name)(%s)", g, w, args);
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
    char *detail, size_t detail_size)
{
    for (size_t base = 0; base < n; base += BLOCK) {
        const size_t len = n - base < BLOCK ? n - base : BLOCK;
        int differs = 0;
@ if t.load then
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
@ else
        for (size_t i = base; i < base + len; ++i)
            differs |= !$(prefix)_same_$(t.name)(got[i], $(k.oracle)($(table.concat(elems, ", "))));
@ end
        if (differs) { /* the element-by-element oracle has the last word */
            const size_t bad = first_difference(x, got, base, base + len, detail, detail_size);
            if (bad < base + len)
                return bad;
        }
    }
    return n;
}

TKH_HIDDEN size_t $(k.check)(const void *const *inputs, const void *out, size_t n,
    unsigned grid, unsigned block, char *detail, size_t detail_size)
{
    (void)grid;
    (void)block;
    const $(S) *x[$(arity)];
    for (int j = 0; j < $(arity); ++j)
        x[j] = inputs[j];
    return compare_blocks(x, out, n, detail, detail_size);
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
