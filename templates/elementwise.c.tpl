/* $(do_not_edit) */
/* Host entry points of $(k.op.name) over $(k.label) and the oracle check they run. */
#include "$(ops_header)"
#include "$(k.oracle_header)"
#include "$(compare_header)"

extern TKH_HIDDEN const tkh_kernel_info $(k.info);

@ local multi = #k.outputs > 1
@ -- Per argument: the C declaration of its storage value (element i of an array, or the
@ -- scalar), the same widened to its compute type within the block (in_<name>[i]), and
@ -- to the ulp rule's reference type.
@ local store_args, block_args, ref_args, measure_params, measure_args = {}, {}, {}, {}, {}
@ for _, x in ipairs(k.args) do
@   local R = x.type.domain == "float" and x.type.reference or x.type.compute
@   if x.scalar then
@     store_args[#store_args + 1] = "s_" .. x.name
@     block_args[#block_args + 1] = "w_" .. x.name
@     ref_args[#ref_args + 1] = "(" .. R .. ")w_" .. x.name
@     measure_params[#measure_params + 1] = x.type.compute .. " w_" .. x.name
@     measure_args[#measure_args + 1] = "w_" .. x.name
@   else
@     store_args[#store_args + 1] = "p_" .. x.name .. "[i]"
@     block_args[#block_args + 1] = "in_" .. x.name .. "[i]"
@     ref_args[#ref_args + 1] = "(" .. R .. ")in_" .. x.name .. "[i]"
@     measure_params[#measure_params + 1] = "const " .. (x.type.load and x.type.compute or x.type.c) .. " *restrict in_" .. x.name
@     measure_args[#measure_args + 1] = "in_" .. x.name
@   end
@ end
@ -- The arrays and scalars, as the check receives them.
@ local function unpack(indent)
@   for _, x in ipairs(k.args) do
@     if x.scalar then
$(indent)const $(x.type.c) s_$(x.name) = *(const $(x.type.c) *)scalars[$(x.index)];
$(indent)const $(x.type.compute) w_$(x.name) = $(load(x.type, "s_" .. x.name));
@     else
$(indent)const $(x.type.c) *p_$(x.name) = inputs[$(x.index)];
@     end
@   end
@   for _, o in ipairs(k.outputs) do
$(indent)const $(o.type.c) *p_$(o.name) = outputs[$(o.index)];
@   end
@ end
@ local has_ulp = false
@ for _, o in ipairs(k.outputs) do has_ulp = has_ulp or o.compare == "ulp" end
enum { BLOCK = 256 };

/* "x = 1 (0x3f800000), alpha = 2" for element i's arguments, in a difference's message. */
static void format_args(char *buf, size_t size, const void *const *inputs, const void *const *scalars, size_t i)
{
    (void)scalars;
@ for _, x in ipairs(k.args) do
@   if x.scalar then
    const $(x.type.c) s_$(x.name) = *(const $(x.type.c) *)scalars[$(x.index)];
@   else
    const $(x.type.c) *p_$(x.name) = inputs[$(x.index)];
@   end
@ end
    size_t len = 0;
    char one[64];
@ for j, x in ipairs(k.args) do
    $(prefix)_format_$(x.type.name)(one, sizeof one, $(store_args[j]));
    if (len < size) {
        const int w = $(prefix)_detail(buf + len, size - len, "%s$(x.scalar and x.name .. " = " or "")%s", $(j > 1 and '", "' or '""'), one);
        len += w > 0 ? (size_t)w : 0;
    }
@ end
}

/* Says in 'note' how output $(multi and "o" or "out") differs at element i. */
static void describe_difference(const void *const *inputs, const void *const *outputs,
    const void *const *scalars, size_t i, int o, double error, tkh_check_note *note)
{
    (void)error;
    (void)o;
    char g[64], args[$(#k.args) * 80];
    format_args(args, sizeof args, inputs, scalars, i);
@ unpack("    ")
@ for _, x in ipairs(k.inputs) do
@   if has_ulp then
    const $(x.type.compute) in_$(x.name)[1] = { $(load(x.type, "p_" .. x.name .. "[i]")) };
@   end
@ end
@ for _, x in ipairs(k.scalars) do
    (void)w_$(x.name);
@ end
@ for _, o in ipairs(k.outputs) do
    if (o == $(o.index)) {
        $(prefix)_format_$(o.type.name)(g, sizeof g, p_$(o.name)[i]);
@   if o.compare == "ulp" then
        const $(o.type.reference) want = $(o.reference_fn)($(table.concat(ref_args, ", "):gsub("%[i%]", "[0]")));
        char e[48];
        if (isinf(error))
            $(prefix)_detail(e, sizeof e, "a special value out of rule");
        else
            $(prefix)_detail(e, sizeof e, "%.3g ulps", error);
        $(prefix)_detail(note->detail, sizeof note->detail,
            "$(multi and o.name .. ": " or "")got %s, expected within %g ulps$(o.atol and " or atol = " .. ops_format_atol(o.atol) or "") of %.21Lg = $(k.op.name)(%s): %s", g,
            $(k.info).outputs[$(o.index)].ulp_bound, (long double)want, args, e);
        note->error = error;
@   else
        char w[64];
        $(prefix)_format_$(o.type.name)(w, sizeof w, $(o.fn)($(table.concat(store_args, ", "))));
        $(prefix)_detail(note->detail, sizeof note->detail, "$(multi and o.name .. ": " or "")got %s, expected %s = $(k.op.name)(%s)", g, w, args);
@   end
    }
@ end
}

@ for _, o in ipairs(k.outputs) do
@   if o.compare == "ulp" then
@     local R = o.type.reference
/* error[i] = the ulp error of $(o.name)[i] against the reference of the inputs, a loop without
 * branches that the compiler vectorizes with the reference (with TKH_VECTOR_REFERENCE,
 * its functions too: tokitai_hip/codegen/reference_simd.h). Not inlined: inside compare_blocks,
 * beside the conversions of 16-bit blocks, GCC 12 gives up on the loop. */
TKH_CHECK_CLONES __attribute__((noinline)) static void measure_$(o.name)($(table.concat(measure_params, ", ")),
    const $(o.type.compute) *got, $(R) *restrict error, size_t len)
{
@     if o.atol then
    /* Within atol = $(ops_format_atol(o.atol)) of the reference passes, as error 0 (compare's atol). */
    const $(R) atol = $(ops_format_atol(o.atol))$(R == "long double" and "L" or "");
    for (size_t i = 0; i < len; ++i) {
        const $(R) r = $(o.reference_fn)($(table.concat(ref_args, ", ")));
        const $(R) d = ($(R))got[i] - r;
        error[i] = d <= atol && -d <= atol ? 0 : $(prefix)_ulp_error_$(o.type.name)(got[i], r);
    }
@     else
    for (size_t i = 0; i < len; ++i)
        error[i] = $(prefix)_ulp_error_$(o.type.name)(got[i], $(o.reference_fn)($(table.concat(ref_args, ", "))));
@     end
}

@   end
@ end
/* Compares the outputs of elements [0, n) with the oracle, block by block: every input
 * in its compute type, then per output a branch-free test that the compiler vectorizes
 * (exact outputs: bit-equal to the oracle's; ulp outputs: each error within the bound,
 * the block's largest kept). Only a block that fails is searched for its first
 * difference. Returns that element, or n. One copy per x86-64 level (TKH_CHECK_CLONES);
 * static, so that no copy is seen outside this file. */
TKH_CHECK_CLONES static size_t compare_blocks(const void *const *inputs, const void *const *outputs,
    const void *const *scalars, size_t n, tkh_check_note *note)
{
@ unpack("    ")
@ if has_ulp then
    double worst = note->worst;
@ end
    for (size_t base = 0; base < n; base += BLOCK) {
        const size_t len = n - base < BLOCK ? n - base : BLOCK;
@ for _, x in ipairs(k.inputs) do
@   if x.type.load then
        $(x.type.compute) in_$(x.name)[BLOCK];
        $(x.type.load)_n(p_$(x.name) + base, in_$(x.name), len);
@   else
        const $(x.type.c) *in_$(x.name) = p_$(x.name) + base;
@   end
@ end
        size_t bad = len;
        int which = -1;
        double bad_error = 0;
@ for _, o in ipairs(k.outputs) do
@   local S, C = o.type.c, o.type.compute
        { /* $(o.name) */
            const $(S) *got = p_$(o.name) + base;
@   if o.compare == "ulp" then
@     local R = o.type.reference
            const double bound = $(k.info).outputs[$(o.index)].ulp_bound;
            $(R) error[BLOCK];
@     if o.type.load then
            $(C) got_wide[BLOCK];
            $(o.type.load)_n(got, got_wide, len);
            measure_$(o.name)($(table.concat(measure_args, ", ")), got_wide, error, len);
@     else
            measure_$(o.name)($(table.concat(measure_args, ", ")), got, error, len);
@     end
            /* (Not in measure's loop: with a maximum in it, that loop does not vectorize.) */
            const $(R) block_worst = $(prefix)_largest_error_$(o.type.name)(error, len);
            if (!(block_worst <= bound)) {
                size_t i = 0;
                while (i < bad && error[i] <= bound)
                    ++i;
                if (i < bad) {
                    bad = i;
                    which = $(o.index);
                    bad_error = (double)error[i];
                }
            } else if (block_worst > worst) { /* where: the first element of the block with that error */
                size_t i = 0;
                while (error[i] != block_worst)
                    ++i;
                note->worst_index = base + i;
                worst = (double)block_worst;
            }
@   else
            $(C) result[BLOCK];
            for (size_t i = 0; i < len; ++i)
                result[i] = $(o.fn)_wide($(table.concat(block_args, ", ")));
@     if o.type.store then
            $(S) want[BLOCK];
            $(o.type.store)_n(result, want, len);
@     else
            const $(C) *want = result;
@     end
            int differs = 0;
            for (size_t i = 0; i < len; ++i)
                differs |= !$(prefix)_same_$(o.type.name)(got[i], ($(S))want[i]);
            if (differs) { /* the first difference in the block */
                size_t i = 0;
                while (i < bad && $(prefix)_same_$(o.type.name)(got[i], ($(S))want[i]))
                    ++i;
                if (i < bad) {
                    bad = i;
                    which = $(o.index);
                }
            }
@   end
        }
@ end
        if (which >= 0) {
            describe_difference(inputs, outputs, scalars, base + bad, which, bad_error, note);
@ if has_ulp then
            note->worst = worst; /* the blocks before this one */
@ end
            return base + bad;
        }
    }
@ if has_ulp then
    note->worst = worst;
@ end
    return n;
}

TKH_HIDDEN size_t $(k.check)(const void *const *inputs, const void *const *outputs,
    const void *const *scalars, size_t n, unsigned grid, unsigned block, tkh_check_note *note)
{
    (void)grid;
    (void)block;
    return compare_blocks(inputs, outputs, scalars, n, note);
}
@ local in_list, out_list, param_list = {}, {}, {}
@ for _, x in ipairs(k.args) do
@   if x.scalar then
@     param_list[#param_list + 1] = "&" .. x.param
@   else
@     in_list[#in_list + 1] = x.param
@   end
@ end
@ for _, o in ipairs(k.outputs) do out_list[#out_list + 1] = o.param end
@ local params_init = #param_list > 0 and ("{ " .. table.concat(param_list, ", ") .. " }") or "{ NULL }"

@ if #k.outputs == 1 and #k.scalars == 0 then
tkh_status $(k.entry)(tkh_context *ctx, $(k.entry_params), size_t n,
    tkh_report *report)
{
    const void *inputs[$(#in_list)] = { $(table.concat(in_list, ", ")) };
    return tkh_kernel_run(ctx, &$(k.info), inputs, $(#in_list), $(out_list[1]), n, report);
}

tkh_status $(k.device_entry)(tkh_context *ctx, $(k.entry_params), size_t n,
    tkh_stream stream)
{
    const void *inputs[$(#in_list)] = { $(table.concat(in_list, ", ")) };
    return tkh_kernel_launch(ctx, &$(k.info), inputs, $(#in_list), $(out_list[1]), n, stream);
}
@ else
tkh_status $(k.entry)(tkh_context *ctx, $(k.entry_params), size_t n,
    tkh_report *report)
{
    const void *inputs[$(#in_list)] = { $(table.concat(in_list, ", ")) };
    void *outputs[$(#out_list)] = { $(table.concat(out_list, ", ")) };
    const void *scalars[$(math.max(#param_list, 1))] = $(params_init);
    const tkh_args args = { inputs, $(#in_list), outputs, $(#out_list), scalars, $(#param_list) };
    return tkh_kernel_call(ctx, &$(k.info), &args, n, report);
}

tkh_status $(k.device_entry)(tkh_context *ctx, $(k.entry_params), size_t n,
    tkh_stream stream)
{
    const void *inputs[$(#in_list)] = { $(table.concat(in_list, ", ")) };
    void *outputs[$(#out_list)] = { $(table.concat(out_list, ", ")) };
    const void *scalars[$(math.max(#param_list, 1))] = $(params_init);
    const tkh_args args = { inputs, $(#in_list), outputs, $(#out_list), scalars, $(#param_list) };
    return tkh_kernel_enqueue(ctx, &$(k.info), &args, n, stream);
}
@ end

tkh_status $(k.tensor_entry)(tkh_context *ctx, $(k.tensor_params), tkh_stream stream,
    tkh_report *report)
{
    const DLTensor *inputs[$(#in_list)] = { $(table.concat(in_list, ", ")) };
    const DLTensor *outputs[$(#out_list)] = { $(table.concat(out_list, ", ")) };
    const void *scalars[$(math.max(#param_list, 1))] = $(params_init);
    const tkh_tensor_args args = { inputs, $(#in_list), outputs, $(#out_list), scalars, $(#param_list),
        NULL, 0, 0, stream };
    return tkh_tensor_call(ctx, &$(k.info), &args, report);
}
