/* $(do_not_edit) */
/* Host entry points of $(k.op.name) over $(k.type.name) and the oracle check they run. */
#include "$(ops_header)"
#include "$(k.oracle_header)"
#include "$(compare_header)"

extern TKH_HIDDEN const tkh_kernel_info $(k.info);

@ local S, arity = k.type.c, k.op.arity
@ local elems, params = {}, {}
@ for i = 1, arity do
@   elems[i] = "x[" .. (i - 1) .. "][i]"
@   params[i] = "const " .. S .. " *" .. k.params[i]
@ end
/* Compares the device output with the oracle, element by element. Returns the first
 * index that differs, or n; for a mismatch, 'detail' says what differed. */
TKH_HIDDEN size_t $(k.check)(const void *const *inputs, const void *out, size_t n,
    unsigned grid, unsigned block, char *detail, size_t detail_size)
{
    (void)grid;
    (void)block;
    const $(S) *x[$(arity)];
    for (int j = 0; j < $(arity); ++j)
        x[j] = inputs[j];
    const $(S) *got = out;
    for (size_t i = 0; i < n; ++i) {
        const $(S) want = $(k.oracle)($(table.concat(elems, ", ")));
        if (!$(prefix)_same_$(k.type.name)(got[i], want)) {
            char g[64], w[64], args[$(arity) * 66] = "";
            $(prefix)_format_$(k.type.name)(g, sizeof g, got[i]);
            $(prefix)_format_$(k.type.name)(w, sizeof w, want);
            for (int j = 0, len = 0; j < $(arity); ++j) {
                char v[64];
                $(prefix)_format_$(k.type.name)(v, sizeof v, x[j][i]);
                len += snprintf(args + len, sizeof args - (size_t)len, "%s%s", j ? ", " : "", v);
            }
            snprintf(detail, detail_size, "got %s, expected %s = $(k.op.name)(%s)", g, w, args);
            return i;
        }
    }
    return n;
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
