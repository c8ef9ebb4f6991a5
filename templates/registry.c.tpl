/* $(do_not_edit) */
/* The '$(name)' registry: what each kernel computes, what it was built for and from,
 * and the contract it runs under. Plain constant data: no constructors, so it works the
 * same from a static and a shared library. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "$(ops_header)"

@ local function list(items, more)
@   local out = {}
@   for _, s in ipairs(items) do out[#out + 1] = cstr(s) end
@   for _, s in ipairs(more or {}) do out[#out + 1] = cstr(s) end
@   out[#out + 1] = "NULL"
@   return "{ " .. table.concat(out, ", ") .. " }"
@ end
static const char *const targets[] = $(list(build.targets));
static const char *const evidence[] = $(list(contract.required_evidence));

@ local function operands(list, outputs)
@   local out = {}
@   for _, x in ipairs(list) do
@     out[#out + 1] = "{ " .. cstr(x.param) .. ", " .. cstr(x.type.name) .. ", sizeof(" .. x.type.c .. "), "
@       .. (outputs and cstr(x.compare) or "NULL") .. ", " .. (x.ulps and ops_format_ulps(x.ulps) or "0") .. ", "
@       .. (x.atol and ops_format_atol(x.atol) or "0") .. ", " .. (x.default and cstr(x.default) or "NULL")
@       .. ", " .. (x.extent and cstr(x.extent) or "NULL") .. " }"
@   end
@   return "{ " .. table.concat(out, ", ") .. " }"
@ end
@ for _, k in ipairs(kernels) do
@   local product = k.op.shape == "matmul"
@   if not product then
TKH_HIDDEN int $(k.launch)(const void *const *, void *const *, const void *const *, size_t, unsigned, unsigned, void *, void *);
@   end
TKH_HIDDEN int $(k.launch)_plan(const void *const *, void *const *, const void *const *, const tkh_plan *, unsigned, unsigned, void *, void *);
@   if not product then
TKH_HIDDEN size_t $(k.check)(const void *const *, const void *const *, const void *const *, size_t, unsigned, unsigned, tkh_check_note *);
@   end
@   if k.op.shape == "reduction" then
TKH_HIDDEN void $(k.check)_fold(const void *, size_t, size_t, tkh_fold *);
TKH_HIDDEN void $(k.check)_merge(tkh_fold *, const tkh_fold *);
TKH_HIDDEN int $(k.check)_finish(const tkh_fold *, const void *const *, size_t, unsigned, unsigned, tkh_check_note *);
@   elseif product then
TKH_HIDDEN size_t $(k.check)_product(const void *, int64_t, const void *, int64_t, int64_t, const void *const *, const int64_t *, const void *, int64_t, const void *const *, size_t, int, size_t, tkh_check_note *);
TKH_HIDDEN int $(k.launch)_nearest(const tkh_plan *);
TKH_HIDDEN size_t $(k.launch)_copies(const void *const *, const tkh_plan *);
@     if k.projectable then
TKH_HIDDEN int $(k.launch)_project(const void *const *, const void *, const tkh_plan *, const tkh_projection_args *, void *, tkh_projection_result *, void *);
@     end
@   elseif k.op.shape == "normalization" then
TKH_HIDDEN size_t $(k.check)_row(const void *const *, const void *, const void *const *, size_t, int64_t, tkh_check_note *);
@   end
static const char *const $(k.id)_obligations[] = $(list(contract.obligations(k), k.op.obligations));
static const char *const $(k.id)_degradations[] = $(list(k.degradations));
static const char *const $(k.id)_non_claims[] = $(list(contract.non_claims, k.op.non_claims));
static const tkh_operand $(k.id)_inputs[] = $(operands(k.inputs));
static const tkh_operand $(k.id)_outputs[] = $(operands(k.outputs, true));
@   if #k.scalars > 0 then
static const tkh_operand $(k.id)_scalars[] = $(operands(k.scalars));
@   end
TKH_HIDDEN const tkh_kernel_info $(k.info) = {
    .catalog = $(cstr(name)),
    .op = $(cstr(k.op.name)),
    .type = $(cstr(k.label)),
    .signature = $(cstr(k.signature)),
    .symbol = $(cstr(k.symbol)),
    .shape = $(cstr(k.op.shape)),
    .shape_kind = TKH_SHAPE_$(k.op.shape:upper()),
    .arity = $(#k.inputs),
    .inputs = $(k.id)_inputs,
    .output_count = $(#k.outputs),
    .outputs = $(k.id)_outputs,
    .scalar_count = $(#k.scalars),
    .scalars = $(#k.scalars > 0 and (k.id .. "_scalars") or "NULL"),
    .out_count = $((k.op.shape == "reduction" or (k.op.shape == "normalization" and k.post)) and 1 or 0),
    .scratch_size = $(k.op.shape == "reduction" and ("sizeof(" .. (k.index and ("struct { " .. k.acc.compute .. " value; int64_t index; }") or k.acc.compute) .. ")") or k.op.shape == "matmul" and ("sizeof(" .. k.acc.compute .. ")") or 0),
    .block = $(k.op.shape == "reduction" and reduce_block or k.op.shape == "normalization" and 1024 or 256),
    .vector_width = $(k.vector_width),
    .domain = $(cstr(k.type.domain)),
    .representation = "dense",
    .semantics = $(cstr(k.op.semantics)),
    .compare_rule = $(cstr(k.compare)),
    .ulp_bound = $(k.ulp_bound and ops_format_ulps(k.ulp_bound) or 0),
    .abs_tolerance = $(k.abs_tolerance and ops_format_atol(k.abs_tolerance) or 0),
    .has_identity = $(k.has_identity and 1 or 0),
    .comparison = $(cstr(k.comparison)),
    .platform = $(cstr(build.platform)),
    .targets = targets,
    .source_fingerprint = $(cstr(build.sources[k.id] or "not computed")),
    .compiler = $(cstr(build.compiler)),
    .compiler_fingerprint = $(cstr(build.compiler_fingerprint)),
    .build_fingerprint = $(cstr(build.build_fingerprint)),
    .build_command = $(cstr(build.build_command)),
    .obligations = $(k.id)_obligations,
    .required_evidence = evidence,
    .degradations = $(k.id)_degradations,
    .non_claims = $(k.id)_non_claims,
    .launch = $(product and "NULL" or k.launch),
    .check = $(product and "NULL" or k.check),
@   if k.op.shape == "reduction" then
    .fold = $(k.check)_fold,
    .merge = $(k.check)_merge,
    .finish = $(k.check)_finish,
@   end
    .launch_plan = $(k.launch)_plan,
@   if k.op.shape == "normalization" then
    .check_row = $(k.check)_row,
@   elseif product then
    .check_product = $(k.check)_product,
    .b_nk = $(k.b_layout == "nk" and 1 or 0),
    .projectable = $(k.projectable and 1 or 0),
    .accumulator = "$(k.acc.name)",
    .project_device = $(k.projectable and (k.launch .. "_project") or "NULL"),
    .nearest = $(k.launch)_nearest,
    .copies = $(k.launch)_copies,
@   end
};

@ end
static const tkh_kernel_info *const kernels[] = {
@ for _, k in ipairs(kernels) do
    &$(k.info),
@ end
};

static const tkh_registry registry = { $(cstr(name)), kernels, sizeof kernels / sizeof kernels[0] };

const tkh_registry *$(prefix)_registry_$(name)(void)
{
    return &registry;
}
