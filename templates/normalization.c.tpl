/* $(do_not_edit) */
/* Host entry points of the $(k.op.name) normalization over $(k.label) and its oracle: each
 * row's reductions and outputs evaluated in long double beside a bound on how far the
 * device's evaluation in $(k.acc.name) may be (tokitai_hip/codegen/error_bound.h): every rounding,
 * the device library's documented error, the depth of the device's folds; a device result
 * within the bound passes (docs/normalizations.md). */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "$(ops_header)"
#include "$(k.oracle_header)"
#include "$(compare_header)"
#include "tokitai_hip/codegen/error_bound.h"

extern TKH_HIDDEN const tkh_kernel_info $(k.info);

@ local S, A, O = k.type.c, k.acc.compute, k.out_type
@ local x = k.inputs[1]
@ local U = k.acc.bits == 64 and "TKH_EB_F64" or "TKH_EB_F32"
@ local stored = O.bits == k.acc.bits and ("TKH_EB_STORED(" .. (O.bits == 64 and "DBL_MAX" or "FLT_MAX") .. ")")
@   or ({ f16 = "TKH_EB_F16", bf16 = "TKH_EB_BF16", f32 = "TKH_EB_F32" })[O.name]
@ local function element(indent)
$(indent)const tkh_eb e_$(x.name) = tkh_eb_exact((long double)$(load(x.type, "p_" .. x.name .. "[j]")));
@   for _, c in ipairs(k.columns) do
$(indent)const tkh_eb e_$(c.name) = tkh_eb_exact(p_$(c.name) ? (long double)$(load(c.type, "p_" .. c.name .. "[j]")) : (long double)($(c.default or "0")));
@   end
@   local used = {} -- an expression may use only some of them
@   for _, c in ipairs(k.columns) do used[#used + 1] = "(void)e_" .. c.name .. ";" end
@   used[#used + 1] = "(void)e_" .. x.name .. ";"
$(indent)$(table.concat(used, " "))
@ end
/* The device's fold of a stage gives each path at most 'depth' additions: a sum's error is
 * within gamma(depth) of the sum of its terms' magnitudes, on top of their own bounds.
 * The long double sum is compensated (its own error: 2 u_W |sum| plus a term of second
 * order). A non-finite sum is exact when all its terms were. */
static tkh_eb fold_sum(long double start, long double sum, long double comp, long double mag,
    long double err, int exact, int64_t depth, tkh_eb_type t)
{
    const long double s = start + sum + comp;
    tkh_eb r = { s, 0 };
    if (!isfinite(s)) {
        r.e = exact ? 0 : INFINITY;
        return r;
    }
    const long double du = (long double)depth * t.u;
    r.e = err + (du < 1 ? du / (1 - du) : INFINITY) * mag + 2 * TKH_EB_UW * fabsl(s)
        + (long double)depth * depth * TKH_EB_UW * TKH_EB_UW * mag;
    if (fabsl(s) + r.e >= t.max)
        r.e = INFINITY;
    return r;
}

TKH_HIDDEN size_t $(k.check)_row(const void *const *inputs, const void *output,
    const void *const *scalars, size_t n, int64_t depth, tkh_check_note *note)
{
    const tkh_eb_type U = $(U);
@ for _, a in ipairs(k.inputs) do
    const $(a.type.c) *p_$(a.name) = (const $(a.type.c) *)inputs[$(a.index)];
@ end
@ for _, s in ipairs(k.scalars) do
    const tkh_eb e_$(s.name) = tkh_eb_exact((long double)$(load(s.type, "*(const " .. s.type.c .. " *)scalars[" .. s.index .. "]")));
@ end
    (void)scalars;
    const tkh_eb e_n = tkh_eb_const((long double)n, (long double)($(A))n); /* as the device holds it */
    tkh_eb e_a; /* each stage's fold, which its post step names 'a' */
    (void)e_n;
@ for i, st in ipairs(k.stages) do
    /* stage $(i), $(st.name): $(st.fold) of $(st.map), then $(st.post) */
    {
@   if st.fold == "sum" then
        long double sum = 0, comp = 0, mag = 0, err = 0;
        int exact = 1;
        for (size_t j = 0; j < n; ++j) {
@     element("            ")
            const tkh_eb m = $(bound_c(k, st.map_tree, st.map));
            const long double t = sum + m.v; /* Neumaier */
            comp += fabsl(sum) >= fabsl(m.v) ? (sum - t) + m.v : (m.v - t) + sum;
            sum = t;
            mag += fabsl(m.v) + m.e;
            err += m.e;
            exact &= m.e == 0;
        }
        const tkh_eb start = $(bound_c(k, st.identity_tree, st.identity));
        e_a = fold_sum(start.v, sum, comp, mag + fabsl(start.v), err + start.e, exact && start.e == 0, depth, U);
@   else
        e_a = $(bound_c(k, st.identity_tree, st.identity));
        for (size_t j = 0; j < n; ++j) {
@     element("            ")
            e_a = tkh_eb_$(st.fold == "max" and "fmax" or "fmin")(e_a, $(bound_c(k, st.map_tree, st.map)));
        }
@   end
    }
    const tkh_eb e_$(st.name) = $(bound_c(k, st.post_tree, st.post));
@ end
    const $(O.c) *got = (const $(O.c) *)output;
@ if k.map then
    for (size_t j = 0; j < n; ++j) {
@   element("        ")
        const tkh_eb want = $(bound_c(k, k.map_tree, k.map));
@ else
    {
        const size_t j = 0;
        const tkh_eb want = $(bound_c(k, k.post_tree, k.post));
@ end
        const long double g = (long double)$(load(O, "got[j]"));
        if (!tkh_eb_accepts(want, g, $(stored))) {
            char gs[64];
            $(prefix)_format_$(O.name)(gs, sizeof gs, got[j]);
            $(prefix)_detail(note->detail, sizeof note->detail, "got %s, expected %.17Lg within %.3Lg (the bound "
                "carried through the op's expressions, fold depth %" PRId64 ")", gs, want.v, want.e, depth);
            return j;
        }
        if (want.e > 0 && isfinite(want.e) && isfinite(want.v) && isfinite(g)) {
            const double used = (double)(fabsl(g - want.v) / want.e);
            if (used > note->worst) {
                note->worst = used;
                note->worst_index = j;
            }
        }
    }
    return n;
}

/* The flat check: the n elements are one row, folded by the rows layout. */
TKH_HIDDEN size_t $(k.check)(const void *const *inputs, const void *const *outputs,
    const void *const *scalars, size_t n, unsigned grid, unsigned block, tkh_check_note *note)
{
    (void)grid;
    (void)block;
    return $(k.check)_row(inputs, outputs[0], scalars, n, tkh_norm_depth(TKH_PLAN_ROWS, (int64_t)n, sizeof($(x.type.c))), note);
}

@ local in_names, scalar_names = {}, {}
@ for _, a in ipairs(k.inputs) do in_names[#in_names + 1] = a.param end
@ for _, s in ipairs(k.scalars) do scalar_names[#scalar_names + 1] = "&" .. s.param end
@ local scalars_init = #scalar_names > 0 and ("{ " .. table.concat(scalar_names, ", ") .. " }") or "{ NULL }"
tkh_status $(k.tensor_entry)(tkh_context *ctx, $(k.tensor_params), int64_t axis,
@ if k.post then
    int keepdims, tkh_stream stream, tkh_report *report)
@ else
    tkh_stream stream, tkh_report *report)
@ end
{
    const DLTensor *inputs[$(#k.inputs)] = { $(table.concat(in_names, ", ")) };
    const DLTensor *outputs[1] = { $(k.outputs[1].param) };
    const void *scalars[$(math.max(#k.scalars, 1))] = $(scalars_init);
    const tkh_tensor_args args = { inputs, $(#k.inputs), outputs, 1, scalars, $(#k.scalars), &axis, 1,
        $(k.post and "keepdims" or "0"), stream };
    return tkh_tensor_call(ctx, &$(k.info), &args, report);
}

tkh_status $(k.entry)(tkh_context *ctx, $(k.entry_params), size_t n, tkh_report *report)
{
    const void *inputs[$(#k.inputs)] = { $(table.concat(in_names, ", ")) };
    void *outputs[1] = { $(k.outputs[1].param) };
    const void *scalars[$(math.max(#k.scalars, 1))] = $(scalars_init);
    const tkh_args args = { inputs, $(#k.inputs), outputs, 1, scalars, $(#k.scalars) };
    return tkh_kernel_call(ctx, &$(k.info), &args, n, report);
}

tkh_status $(k.device_entry)(tkh_context *ctx, $(k.entry_params), size_t n, tkh_stream stream)
{
    const void *inputs[$(#k.inputs)] = { $(table.concat(in_names, ", ")) };
    void *outputs[1] = { $(k.outputs[1].param) };
    const void *scalars[$(math.max(#k.scalars, 1))] = $(scalars_init);
    const tkh_args args = { inputs, $(#k.inputs), outputs, 1, scalars, $(#k.scalars) };
    return tkh_kernel_enqueue(ctx, &$(k.info), &args, n, stream);
}
