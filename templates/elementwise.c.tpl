/* $(do_not_edit) */
/* Host entry points of $(k.op.name) over $(k.type.name) and the oracle check they run. */
#include "$(ops_header)"
#include "$(oracle_header)"
#include "$(compare_header)"

extern TKH_HIDDEN const tkh_kernel_info $(k.info);

@ local S = k.type.c
@ local binary = k.op.arity == 2
/* Compares the device output with the oracle, element by element. Returns the first
 * index that differs, or n; for a mismatch, 'detail' says what differed. */
TKH_HIDDEN size_t $(k.check)(const void *const *inputs, const void *out, size_t n,
    unsigned grid, unsigned block, char *detail, size_t detail_size)
{
    (void)grid;
    (void)block;
    const $(S) *x = inputs[0];
@ if binary then
    const $(S) *y = inputs[1];
@ end
    const $(S) *got = out;
    for (size_t i = 0; i < n; ++i) {
        const $(S) want = $(k.oracle)(x[i]$(binary and ", y[i]" or ""));
        if (!$(prefix)_same_$(k.type.name)(got[i], want)) {
            char g[64], w[64], a[64], b[64] = "";
            $(prefix)_format_$(k.type.name)(g, sizeof g, got[i]);
            $(prefix)_format_$(k.type.name)(w, sizeof w, want);
            $(prefix)_format_$(k.type.name)(a, sizeof a, x[i]);
@ if binary then
            $(prefix)_format_$(k.type.name)(b, sizeof b, y[i]);
@ end
            snprintf(detail, detail_size, "got %s, expected %s = $(k.op.name)(%s%s%s)", g, w, a,
                $(binary and '", "' or '""'), b);
            return i;
        }
    }
    return n;
}

@ local params = binary and ("const " .. S .. " *lhs, const " .. S .. " *rhs") or ("const " .. S .. " *in")
@ local names = binary and "lhs, rhs" or "in"
tkh_status $(k.entry)(tkh_context *ctx, $(params), $(S) *out, size_t n, tkh_report *report)
{
    const void *inputs[$(k.op.arity)] = { $(names) };
    return tkh_kernel_run(ctx, &$(k.info), inputs, $(k.op.arity), out, n, report);
}

tkh_status $(k.device_entry)(tkh_context *ctx, $(params), $(S) *out, size_t n,
    tkh_stream stream)
{
    const void *inputs[$(k.op.arity)] = { $(names) };
    return tkh_kernel_launch(ctx, &$(k.info), inputs, $(k.op.arity), out, n, stream);
}
