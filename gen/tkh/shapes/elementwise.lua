-- The elementwise shape: one kernel per binding of the signature's placeholders, each
-- output an expression of the operands (templates/elementwise.*.tpl).
local types = require "tkh.types"
local signature = require "tkh.signature"
local op_fields = require "tkh.op_fields"
local check_expression, check_keys = op_fields.check_expression, op_fields.check_keys
local lookup, per_type_list = op_fields.lookup, op_fields.per_type_list
local expand_types, parse_compare = op_fields.expand_types, op_fields.parse_compare
local sorted_keys = op_fields.sorted_keys

local M = {}

M.fields = {
  name = "required", arity = "optional", inputs = "optional", outputs = "optional",
  types = "optional", semantics = "required", compute = "required", steps = "optional",
  reference = "optional", compare = "optional", degradations = "optional",
  obligations = "optional", non_claims = "optional",
}

-- Math functions whose results differ between device and host libraries by ulps: a float
-- kernel that calls one cannot be compared bit for bit (docs/op-files.md).
M.INEXACT_FUNCTIONS = {}
for name in ([[exp exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan atan2 sinh cosh
    tanh asinh acosh atanh erf erfc pow hypot cbrt rsqrt]]):gmatch("%a[%w_]*") do
  M.INEXACT_FUNCTIONS[name] = true
end

-- The short form's operands are a, b and c, as many as its arity.
local function check_arity(expr, what, arity, fail)
  local position = { a = 1, b = 2, c = 3 }
  for _, word in ipairs(signature.identifiers(expr)) do
    if position[word] and position[word] > arity then
      fail("%s expression '%s' uses operand '%s' but arity is %d", what, expr, word, arity)
    end
  end
end

-- 'steps': { { "NAME", "expression" [, "type"] }, ... }, each a constant the next steps
-- and the expressions may use (the generated function declares them in order), of the
-- type given (a type name or a placeholder) or else of the first output's type.
local function parse_steps(list, k, names, fail)
  if list == nil then return {} end
  local label = k.label
  if type(list) ~= "table" then fail("'steps' for %s must be a list of { name, expression }", label) end
  local out = {}
  for i, step in ipairs(list) do
    if type(step) ~= "table" or type(step[1]) ~= "string" or step[4] ~= nil
        or (step[3] ~= nil and type(step[3]) ~= "string") then
      fail("steps[%d] for %s must be { name, expression } or { name, expression, type }", i, label)
    end
    local name = step[1]
    if not name:match("^[%a_][%w_]*$") or #name > 40 or signature.RESERVED[name] or names[name] then
      fail("step name '%s' for %s must be a C identifier other than the operands, the "
        .. "placeholders, T, U, W, TMIN, TMAX and BITS, and not defined twice", name, label)
    end
    local t = k.outputs[1].type
    if step[3] ~= nil then
      t = types.by_name[k.binding[step[3]] or step[3]]
      if not t then fail("step '%s' for %s: unknown type '%s'", name, label, step[3]) end
    end
    check_expression(step[2], "step " .. name, fail)
    signature.check_names(step[2], "step " .. name, names, fail)
    names[name] = "step"
    out[i] = { name = name, expr = step[2], type = t }
  end
  return out
end

-- A per-type field's value for kernel k: a function of the binding (k.view), a table
-- keyed by k's key type (its first placeholder's), or a value for every type.
-- 'single' says which values are not tables of per-type entries (compare's { ulps = N }).
local function resolve(value, k, single)
  if type(value) == "function" then return value(k.view) end
  if type(value) ~= "table" or (single and single(value)) then return value end
  return lookup(value, k.type.name)
end

-- A field given per output ({ q = ..., r = ... }, keyed by output names), or nil when
-- it is one for all outputs.
local function per_output(value, k)
  if type(value) ~= "table" or #value > 0 then return nil end
  for _, name in ipairs(k.output_names) do
    if value[name] ~= nil then return value end
  end
  return nil
end

-- Checks the keys of a per-type field (or of each entry of a per-output one).
local function check_field(value, field, output_set, fail)
  if type(value) ~= "table" or #value > 0 or (field:match("^compare") and (value.ulps ~= nil or value.atol ~= nil)) then
    return
  end
  local by_output = false
  for key in pairs(value) do by_output = by_output or output_set[key] ~= nil end
  if not by_output then return check_keys(value, field, fail) end
  for _, key in ipairs(sorted_keys(value)) do
    if not output_set[key] then
      fail("'%s' is keyed by output names, but '%s' is not an output", field, key)
    end
    check_field(value[key], field .. "." .. key, {}, fail)
  end
end

local function is_ulps(v) return type(v) == "string" or v.ulps ~= nil or v.atol ~= nil end

-- A read-only view of a type for op files' functions: name, c, compute, bits, family,
-- domain, min, max.
local function type_view(t)
  return { name = t.name, c = t.c, compute = t.compute, bits = t.bits, family = t.family,
           domain = t.domain, min = t.min, max = t.max }
end

-- The signature of an elementwise op: its own ('inputs', 'outputs') or the short form
-- ('arity': operands a, b, c of type T, output 'out'), with the entry points' parameter
-- names of each.
local SHORT_PARAMS = { { "in" }, { "lhs", "rhs" }, { "in0", "in1", "in2" } }
local function elementwise_signature(def, fail)
  if def.arity ~= nil then
    if def.inputs ~= nil or def.outputs ~= nil then
      fail("'arity' is the short form of 'inputs' and 'outputs': give one or the other")
    end
    local arity = def.arity
    if math.type(arity) ~= "integer" or arity < 1 or arity > 3 then
      fail("arity must be 1, 2 or 3, got %s", tostring(arity))
    end
    local args = {}
    for i = 1, arity do
      args[i] = { name = ({ "a", "b", "c" })[i], type = "T", param = SHORT_PARAMS[arity][i] }
    end
    return args, { { name = "out", type = "T", param = "out" } }, true
  end
  if def.inputs == nil or def.outputs == nil then
    fail("missing field '%s' (or the short form: arity)", def.inputs == nil and "inputs" or "outputs")
  end
  local seen = {}
  local args = signature.parse(def.inputs, "inputs", true, seen, fail)
  local outputs = signature.parse(def.outputs, "outputs", false, seen, fail)
  local arrays, scalars = 0, 0
  for _, a in ipairs(args) do
    a.param = a.name
    if a.scalar then scalars = scalars + 1 else arrays = arrays + 1 end
  end
  for _, o in ipairs(outputs) do o.param = o.name end
  if arrays == 0 then fail("inputs: at least one array is needed (n is its length)") end
  for kind, count in pairs { inputs = arrays, outputs = #outputs, scalars = scalars } do
    if count > signature.MAX[kind] then
      fail("%d %s declared: at most %d are supported", count, kind, signature.MAX[kind])
    end
  end
  return args, outputs, false
end

-- The kernels of one elementwise declaration, one per binding of its placeholders.
function M.kernels(def, op, fail, filter)
  local args, outputs, short = elementwise_signature(def, fail)
  local all = {}
  for _, a in ipairs(args) do all[#all + 1] = a end
  for _, o in ipairs(outputs) do all[#all + 1] = o end
  local placeholders = signature.placeholders(all)
  op.arity, op.short, op.placeholders = 0, short, placeholders
  for _, a in ipairs(args) do if not a.scalar then op.arity = op.arity + 1 end end
  local output_set = {}
  for _, o in ipairs(outputs) do output_set[o.name] = true end
  for _, field in ipairs { "compute", "reference", "compare", "degradations" } do
    check_field(def[field], field, output_set, fail)
  end
  if type(def.steps) == "table" and #def.steps == 0 then check_keys(def.steps, "steps", fail) end
  local kernels = {}
  for _, b in ipairs(signature.bindings(placeholders, def.types, function(list) return expand_types(list, fail) end, fail)) do
    local function typed(o)
      local t = types.by_name[b[o.type] or o.type]
      return { name = o.name, type = t, scalar = o.scalar, param = o.param }
    end
    local k = { op = op, binding = b, view = {}, args = {}, inputs = {}, scalars = {}, outputs = {},
                output_names = {} }
    for _, a in ipairs(args) do
      local x = typed(a)
      k.args[#k.args + 1] = x
      table.insert(x.scalar and k.scalars or k.inputs, x)
    end
    for _, o in ipairs(outputs) do
      k.outputs[#k.outputs + 1] = typed(o)
      k.output_names[#k.output_names + 1] = o.name
    end
    local labels = {}
    for _, p in ipairs(placeholders) do
      labels[#labels + 1] = b[p]
      k.view[p] = type_view(types.by_name[b[p]])
    end
    k.type = types.by_name[placeholders[1] and b[placeholders[1]] or k.inputs[1].type.name]
    k.label = #labels > 0 and table.concat(labels, "_") or k.type.name
    -- What the expressions may name: operands, placeholders and T's macros, then steps.
    local names = {}
    for _, x in ipairs(k.args) do names[x.name] = "operand" end
    for _, p in ipairs(placeholders) do names[p] = "type" end
    if b.T and k.view.T.domain == "integer" then
      for m in pairs(signature.RESERVED) do names[m] = "macro" end
    end
    local function check(expr, what)
      check_expression(expr, what, fail)
      if short then check_arity(expr, what, op.arity, fail) end
      signature.check_names(expr, what, names, fail)
    end
    k.steps = parse_steps(resolve(def.steps, k, function(v) return #v > 0 end), k, names, fail)
    local computes, compares = per_output(def.compute, k), per_output(def.compare, k)
    local references = per_output(def.reference, k)
    if #k.outputs > 1 and not computes then
      fail("%d outputs (%s): 'compute' must give one expression per output, keyed by name",
        #k.outputs, table.concat(k.output_names, ", "))
    end
    for _, o in ipairs(k.outputs) do
      local what = #k.outputs > 1 and "compute." .. o.name or "compute"
      o.expr = resolve(computes and computes[o.name] or def.compute, k)
      if o.expr == nil then
        fail("no %s expression for type '%s' (give one of: %s)", what, k.label, table.concat(types.keys(k.type.name), ", "))
      end
      check(o.expr, what)
      o.compare, o.ulps, o.atol = parse_compare(resolve(compares and compares[o.name] or def.compare, k, is_ulps),
        "elementwise", o.type, fail)
      o.reference = resolve(references and references[o.name] or def.reference, k)
      if o.reference ~= nil then check_expression(o.reference, "reference", fail) end
      local text = o.expr
      for _, step in ipairs(k.steps) do text = text .. " " .. step.expr end
      if o.compare == "exact" and o.type.domain == "float" then
        for _, word in ipairs(signature.identifiers(text)) do
          if M.INEXACT_FUNCTIONS[word] or word:match("^tkh_fast_") then
            fail("%s expression for %s calls %s, whose device and host results differ by ulps: "
              .. "compare it within a bound, compare = { ulps = N } (docs/op-files.md)", what, k.label, word)
          end
        end
      end
    end
    k.degradations = per_type_list(def.degradations, "degradations", k.type.name, fail)
    local keep = not filter.ops or filter.ops[op.name]
    for _, p in ipairs(placeholders) do keep = keep and (not filter.types or filter.types[b[p]]) end
    if not placeholders[1] then keep = keep and (not filter.types or filter.types[k.type.name]) end
    if keep then kernels[#kernels + 1] = k end
    op.bound_types = op.bound_types or {}
    for _, p in ipairs(placeholders) do op.bound_types[b[p]] = true end
  end
  return kernels
end

return M
