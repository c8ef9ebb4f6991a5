/* $(do_not_edit) */
/* Host entry points of $(k.op.name) over $(k.type.name) and the oracle check they run. */
#include <inttypes.h>
#include <stdio.h>

#include "$(ops_header)"
#include "$(oracle_header)"

extern TKH_HIDDEN const tkh_kernel_info $(k.info);

@ local T = k.type.c
/* Compares the device output with the oracle, element by element, exactly. Returns the
 * first index that differs, or n; for a mismatch, 'detail' says what differed. */
TKH_HIDDEN size_t $(k.check)(const void *const *inputs, const void *out, size_t n,
    char *detail, size_t detail_size)
{
@ if k.op.arity == 2 then
    const $(T) *lhs = inputs[0], *rhs = inputs[1];
@ else
    const $(T) *in = inputs[0];
@ end
    const $(T) *got = out;
    for (size_t i = 0; i < n; ++i) {
@ if k.op.arity == 2 then
        const $(T) want = $(k.oracle)(lhs[i], rhs[i]);
@ else
        const $(T) want = $(k.oracle)(in[i]);
@ end
        if (got[i] != want) {
@ if k.op.arity == 2 then
            snprintf(detail, detail_size, "got %" $(k.type.fmt) ", expected %" $(k.type.fmt)
                " = $(k.op.name)(%" $(k.type.fmt) ", %" $(k.type.fmt) ")", got[i], want, lhs[i], rhs[i]);
@ else
            snprintf(detail, detail_size, "got %" $(k.type.fmt) ", expected %" $(k.type.fmt)
                " = $(k.op.name)(%" $(k.type.fmt) ")", got[i], want, in[i]);
@ end
            return i;
        }
    }
    return n;
}

@ if k.op.arity == 2 then
tkh_status $(k.entry)(tkh_context *ctx, const $(T) *lhs, const $(T) *rhs, $(T) *out,
    size_t n, tkh_report *report)
{
    const void *inputs[2] = { lhs, rhs };
    return tkh_kernel_run(ctx, &$(k.info), inputs, 2, out, n, report);
}

tkh_status $(k.device_entry)(tkh_context *ctx, const $(T) *lhs, const $(T) *rhs,
    $(T) *out, size_t n, tkh_stream stream)
{
    const void *inputs[2] = { lhs, rhs };
    return tkh_kernel_launch(ctx, &$(k.info), inputs, 2, out, n, stream);
}
@ else
tkh_status $(k.entry)(tkh_context *ctx, const $(T) *in, $(T) *out, size_t n,
    tkh_report *report)
{
    const void *inputs[1] = { in };
    return tkh_kernel_run(ctx, &$(k.info), inputs, 1, out, n, report);
}

tkh_status $(k.device_entry)(tkh_context *ctx, const $(T) *in, $(T) *out, size_t n,
    tkh_stream stream)
{
    const void *inputs[1] = { in };
    return tkh_kernel_launch(ctx, &$(k.info), inputs, 1, out, n, stream);
}
@ end
