-- Loads and validates op files. An op file is Lua run in a sandbox that offers one
-- declaration per kernel shape ('elementwise', 'reduction'); each call is checked at
-- once and an error names the file and the line of the call:
--   ops/core.lua:14: op 'add': unknown type 'i33' (known: i8, i16, ...)
local types = require "tkh.types"
local errors = require "tkh.errors"
local sandbox = require "tkh.sandbox"
local functions = require "tkh.functions"
local expr = require "tkh.expr"
local signature = require "tkh.signature"

local M = {}

-- Per shape: each field, and whether it is required. Per-type tables (compute, reference,
-- identity, compare) are keyed by type name, family, domain or 'any' (tkh.types).
local SHAPES = {
  elementwise = {
    name = "required", arity = "optional", inputs = "optional", outputs = "optional",
    types = "optional", semantics = "required", compute = "required", steps = "optional",
    reference = "optional", compare = "optional", degradations = "optional",
    obligations = "optional", non_claims = "optional",
  },
  reduction = {
    name = "required", types = "required", semantics = "required", combine = "optional",
    identity = "optional", start = "optional", better = "optional", map = "optional", post = "optional",
    accumulator = "optional", output = "optional", reference = "optional", compare = "optional",
    degradations = "optional", obligations = "optional", non_claims = "optional",
  },
  normalization = {
    name = "required", types = "required", semantics = "required", inputs = "optional",
    outputs = "optional", accumulator = "optional", reductions = "required", map = "optional",
    post = "optional", degradations = "optional", obligations = "optional", non_claims = "optional",
  },
}

-- How the oracle compares device and CPU results (docs/semantics.md). 'ulp' is declared
-- with its bound, compare = { ulps = N }; its text names the bound (M.describe).
M.COMPARISONS = {
  exact = "exact: every element bit-equal to the oracle's (any NaN equals any NaN)",
  sum_bound = "bounded: |device - accurate sum| <= depth * u * sum|x| + storage rounding + "
    .. "underflow, depth = the most additions on one path of the device's tree",
  ulp = "within a bound in ulps of the op's expression (or its 'reference') evaluated in a wider type",
  bound = "within the error bound carried through the op's expressions beside their exact value (long "
    .. "double): every rounding of the compute type, the device library's documented error and the "
    .. "depth of its folds (docs/normalizations.md)",
}

-- The bound of an output under the ulp rule on a platform ("amd", "nvidia"; the larger
-- for any other, as for a generator run outside CMake).
function M.bound(o, platform)
  return o.ulps[platform] or math.max(o.ulps.amd, o.ulps.nvidia)
end

-- The comparison of one output, in words, for the registry, the manifest and reports.
function M.describe(o, platform)
  if o.compare ~= "ulp" then return M.COMPARISONS[o.compare] end
  return string.format("within %s ulps of %s: |device - reference| / ulp(reference), the "
    .. "%s evaluated in %s and not rounded; NaN, infinities, signed zeros and overflow "
    .. "by rule%s", M.format_ulps(M.bound(o, platform)), o.type.name,
    o.reference and "op's reference expression" or "expression", o.type.reference,
    o.atol and string.format("; or |device - reference| <= atol = %s (either zero's sign)",
      M.format_atol(o.atol)) or "")
end

-- A bound as written in texts: "2", "0.5", "1.25".
function M.format_ulps(n)
  return (string.format("%.6g", n))
end

-- An absolute tolerance as written in C, JSON and texts: the shortest form that reads
-- back as the same double ("1e-30", not "1.0000000000000001e-30").
function M.format_atol(x)
  for digits = 1, 17 do
    local text = string.format("%." .. digits .. "g", x)
    if tonumber(text) == x then return text end
  end
end

-- Math functions whose results differ between device and host libraries by ulps: a float
-- kernel that calls one cannot be compared bit for bit (docs/op-files.md).
M.INEXACT_FUNCTIONS = {}
for name in ([[exp exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan atan2 sinh cosh
    tanh asinh acosh atanh erf erfc pow hypot cbrt rsqrt]]):gmatch("%a[%w_]*") do
  M.INEXACT_FUNCTIONS[name] = true
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  return keys
end

local function is_identifier(s)
  return type(s) == "string" and s:match("^[a-z][a-z0-9_]*$") ~= nil and #s <= 40
end
M.is_identifier = is_identifier

-- An expression is pasted into C and HIP code: it must stay one expression.
local function check_expression(expr, what, fail)
  if type(expr) ~= "string" or expr:match("^%s*$") then
    fail("%s expression must be a non-empty string, got %s", what, type(expr))
  end
  local bad = expr:match("[;{}#\\\n\r`@$]") or expr:match("/%*") or expr:match("//")
  if bad then
    fail("%s expression '%s' contains '%s' (only one C expression is allowed)", what, expr, bad)
  end
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

local function string_list(value, what, fail)
  if value == nil then return {} end
  if type(value) ~= "table" then fail("'%s' must be a list of strings", what) end
  for i, s in ipairs(value) do
    if type(s) ~= "string" then fail("'%s'[%d] must be a string, got %s", what, i, type(s)) end
  end
  return value
end

-- 'degradations' is a list for every type, or lists keyed like 'compute'.
local function per_type_list(value, what, tname, fail)
  if value == nil then return {} end
  if type(value) ~= "table" then fail("'%s' must be a list of strings, or lists keyed by type", what) end
  if #value > 0 or next(value) == nil then return string_list(value, what, fail) end
  for _, key in ipairs(sorted_keys(value)) do -- sorted: the same key is named on every run
    if not (types.group_keys[key] or types.is_type(key)) then
      fail("unknown %s key '%s' (use a type name, signed, unsigned, integer, float or any)",
        what, key)
    end
    string_list(value[key], what .. "." .. key, fail)
  end
  for _, key in ipairs(types.keys(tname)) do
    if value[key] ~= nil then return value[key] end
  end
  return {}
end

-- The entry of a per-type table for a type: most specific key first.
local function lookup(tbl, tname)
  if tbl == nil then return nil end
  for _, key in ipairs(types.keys(tname)) do
    if tbl[key] ~= nil then return tbl[key] end
  end
end

local function check_keys(tbl, field, fail)
  if tbl == nil then return end
  if type(tbl) ~= "table" then fail("'%s' must be a table keyed by type or type group", field) end
  for _, key in ipairs(sorted_keys(tbl)) do
    if not (types.group_keys[key] or types.is_type(key)) then
      fail("unknown %s key '%s' (use a type name, signed, unsigned, integer, float or any)",
        field, key)
    end
  end
end

-- 'types' may name types or groups ('integer', 'float', 'signed', 'unsigned', 'any').
local function expand_types(list, fail)
  if type(list) ~= "table" or #list == 0 then fail("'types' must be a non-empty list") end
  local out, listed = {}, {}
  for _, entry in ipairs(list) do
    local names
    if types.is_type(entry) then
      names = { entry }
    elseif types.group_keys[entry] then
      names = types.group(entry)
    else
      fail("unknown type '%s' (known: %s; groups: any, integer, float, signed, unsigned)",
        tostring(entry), table.concat(types.order, ", "))
    end
    for _, t in ipairs(names) do
      if listed[t] then fail("type '%s' listed twice", t) end
      listed[t], out[#out + 1] = true, t
    end
  end
  return out
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

-- A comparison: "exact", "sum_bound", or "ulp" with its bound from { ulps = N } and an
-- optional absolute floor, { ulps = N, atol = A }: a result within A of the reference
-- passes whatever its error in ulps (numpy.allclose's atol).
local function parse_compare(value, shape, t, fail)
  if value == nil then return "exact" end
  if type(value) == "table" then
    for _, key in ipairs(sorted_keys(value)) do
      if key ~= "ulps" and key ~= "atol" then fail("unknown compare field '%s' (known: ulps, atol)", key) end
    end
    if value.ulps == nil then fail("compare { atol = ... } needs its bound in ulps too: compare = { ulps = N, atol = A }") end
    local atol = value.atol
    if atol ~= nil and (type(atol) ~= "number" or atol ~= atol or atol < 0 or atol == math.huge) then
      fail("compare atol must be a finite number >= 0, got %s", tostring(atol))
    end
    -- A number, or one per platform: { nvidia = N, amd = M } (vendors' libraries differ).
    local ulps = value.ulps
    if type(ulps) ~= "table" then ulps = { nvidia = ulps, amd = ulps } end
    for _, key in ipairs(sorted_keys(ulps)) do
      if key ~= "nvidia" and key ~= "amd" then fail("unknown platform '%s' in ulps (known: amd, nvidia)", key) end
    end
    for _, platform in ipairs { "amd", "nvidia" } do
      local n = ulps[platform]
      if type(n) ~= "number" or n ~= n or n < 0 or n == math.huge then
        fail("compare ulps%s must be a finite number >= 0, got %s",
          ulps == value.ulps and "." .. platform or "", tostring(n))
      end
    end
    if shape ~= "elementwise" or t.domain ~= "float" then
      fail("compare { ulps = ... } is for elementwise outputs of float types, not %s %s", t.name, shape)
    end
    return "ulp", ulps, atol ~= 0 and atol or nil
  end
  if value == "ulp" then fail("compare 'ulp' needs its bound: compare = { ulps = N }") end
  if not M.COMPARISONS[value] then
    fail("unknown comparison '%s' (known: exact, sum_bound, or { ulps = N })", tostring(value))
  end
  return value
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
local function elementwise_kernels(def, op, fail, filter)
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

-- Under sum_bound, the post steps whose error the bound follows (templates/reduction.c.tpl).
M.BOUNDED_POSTS = { ["a"] = "none", ["a / n"] = "mean", ["sqrt(a)"] = "sqrt" }

-- Adds kernel k of type tname to 'kernels' unless the filter leaves it out; the op binds
-- the type either way (a reduction's or a normalization's, one type each).
local function keep_kernel(kernels, k, op, def, tname, filter)
  if (not filter.types or filter.types[tname]) and (not filter.ops or filter.ops[def.name]) then
    kernels[#kernels + 1] = k
  end
  op.bound_types = op.bound_types or {}
  op.bound_types[tname] = true
end

-- The kernels of one reduction declaration, in four parts as CuPy's ReductionKernel: a
-- map of each element x (default: x itself) to the accumulator type ACC (default: T,
-- f32 for f16 and bf16), an associative 'combine' of two accumulators a and b from
-- 'identity', and a 'post' step of the final accumulator a and the count n (an ACC)
-- to the output type OUT (default: T). The identity is also what a reduction over no
-- elements gives (through the post step, n = 0), as NumPy's ufuncs' identity is; a
-- reduction that has none (max: NumPy and torch refuse an empty one) declares where its
-- folds start instead, 'start', and refuses zero elements.
local function reduction_kernels(def, op, fail, filter)
  op.arity = 1
  -- Index-aware: 'better' (is element b preferred to a?) instead of the four parts; the
  -- kernel picks the best element, ties to the lowest index, into two outputs.
  local indexed = def.better ~= nil
  if not indexed and def.combine == nil then fail("missing field 'combine'") end
  if not indexed and (def.identity == nil) == (def.start == nil) then
    fail(def.identity and "'identity' and 'start' both given: an identity is where the folds start"
      or "missing field 'identity' (what a reduction over no elements gives, and where folds start), or "
        .. "'start' (where folds start, for a reduction without an identity: zero elements are refused)")
  end
  if indexed then
    for _, field in ipairs { "combine", "identity", "start", "map", "post", "accumulator", "output", "compare" } do
      if def[field] ~= nil then
        fail("'%s' is not for an index-aware reduction, which has 'better' (it combines by that, "
          .. "ties to the lowest index)", field)
      end
    end
  end
  local per_type = { compare = def.compare }
  if type(def.compare) == "string" then per_type.compare = { any = def.compare } end
  for _, field in ipairs { "combine", "reference", "identity", "start", "compare", "map", "post", "accumulator", "output" } do
    local v = per_type[field] or def[field]
    if type(v) == "table" then check_keys(v, field, fail) end
  end
  local kernels = {}
  for _, tname in ipairs(expand_types(def.types, fail)) do
    local t = types.by_name[tname]
    local function resolved(field)
      local v = def[field]
      if type(v) == "string" then return v end
      return lookup(v, tname)
    end
    local function type_of(field, default)
      local name = resolved(field) or default
      if name == "T" then name = tname end
      local x = types.by_name[name]
      if not x then fail("%s for %s: unknown type '%s'", field, tname, tostring(name)) end
      return x
    end
    local acc = type_of("accumulator", t.compute == "float" and t.bits == 16 and "f32" or tname)
    local out_type = type_of("output", tname)
    local k = { op = op, type = t, label = tname, binding = { T = tname }, steps = {}, acc = acc,
                out_type = out_type,
                degradations = per_type_list(def.degradations, "degradations", tname, fail) }
    local names = { T = "type", ACC = "type", OUT = "type" }
    if t.domain == "integer" then for m in pairs(signature.RESERVED) do names[m] = "macro" end end
    local function check(expr, what, operands)
      check_expression(expr, what, fail)
      local scope = {}
      for name, kind in pairs(names) do scope[name] = kind end
      for _, o in ipairs(operands) do scope[o] = "operand" end
      signature.check_names(expr, what, scope, fail)
    end
    k.inputs = { { name = "in", type = t, param = "in" } }
    k.args, k.scalars = k.inputs, {}
    if indexed then
      local better = resolved("better")
      if better == nil then fail("no better expression for type '%s'", tname) end
      check(better, "better", { "a", "b" })
      k.index, k.better, k.map, k.post, k.identity = true, better, "x", "a", "(ACC)0"
      k.outputs = { { name = "value", type = t, param = "value", compare = "exact", expr = better },
                    { name = "index", type = types.by_name.i64, param = "index", compare = "exact" } }
      k.output_names = { "value", "index" }
    else
      local expr = resolved("combine")
      if expr == nil then
        fail("no combine expression for type '%s' (give one of: %s)", tname, table.concat(types.keys(tname), ", "))
      end
      check(expr, "combine", { "a", "b" })
      k.map = resolved("map") or "x"
      check(k.map, "map", { "x" })
      k.post = resolved("post") or "a"
      check(k.post, "post", { "a", "n" })
      local out = { name = "out", type = out_type, param = "out", expr = expr,
                    reference = lookup(def.reference, tname) }
      k.outputs, k.output_names = { out }, { "out" }
      if out.reference ~= nil then check_expression(out.reference, "reference", fail) end
      local start = def.identity ~= nil and "identity" or "start"
      k.identity, k.has_identity = resolved(start), start == "identity"
      if k.identity == nil then fail("no %s for type '%s'", start, tname) end
      check(k.identity, start, {})
      out.compare = parse_compare(lookup(per_type.compare, tname), "reduction", t, fail)
      if out.compare == "sum_bound" then
        k.bounded_post = M.BOUNDED_POSTS[k.post]
        if t.domain ~= "float" or acc.domain ~= "float" or out_type.domain ~= "float" then
          fail("compare 'sum_bound' is for float elements, accumulators and outputs, not %s", tname)
        end
        if not k.bounded_post then
          fail("under compare 'sum_bound' the post step must be 'a', 'a / n' or 'sqrt(a)' (its error is "
            .. "in the bound), got '%s'", k.post)
        end
        if k.map ~= "x" and k.map ~= "x * x" then
          fail("under compare 'sum_bound' the map must be 'x' or 'x * x' (one rounding, in the bound), got '%s'", k.map)
        end
      end
    end
    keep_kernel(kernels, k, op, def, tname, filter)
  end
  return kernels
end

-- How the oracle folds a normalization's reduction stage (the bound it carries): by the
-- combine step, which must be one of these.
local FOLDS = { ["a + b"] = "sum", ["b + a"] = "sum", ["fmax(a, b)"] = "max", ["fmax(b, a)"] = "max",
                ["fmin(a, b)"] = "min", ["fmin(b, a)"] = "min" }

-- The map with the last stage's mapped element, where it holds that whole and reads x
-- nowhere else (softmax's exp(x - m)), written as tkhn_value: the cached rows kernel keeps
-- that value of each element (over the element, or beside it for a narrower type) and
-- evaluates it once, not twice. Only for a value of the compute type already (names of
-- ACC, no floating literal outside a cast), so that keeping it changes no bit. nil where
-- that does not apply.
local function reuse_of(k, is_type)
  local sub = k.stages[#k.stages].map_tree
  if sub.k == "name" or sub.k == "num" then return nil end
  local wide = {}
  for _, sc in ipairs(k.scalars) do wide[sc.name] = sc.type.compute ~= k.acc.compute end
  local function plain(n, cast)
    if (n.k == "num" and not cast and not n.text:match("^%d+$")) or (n.k == "name" and wide[n.name])
        or (n.k == "cast" and n.type ~= "ACC" and n.type ~= k.acc.compute) then
      return false
    end
    for _, c in ipairs(expr.children(n)) do
      if not plain(c, n.k == "cast") then return false end
    end
    return true
  end
  if not plain(sub, false) then return nil end
  local found = false
  local text = expr.c(k.map_tree, function(n)
    if expr.same(n, sub) then found = true return "tkhn_value" end
  end)
  if not found then return nil end
  for _, name in ipairs(expr.names(expr.parse(text, is_type))) do
    if name == k.inputs[1].name then return nil end
  end
  return text
end

-- The kernels of one normalization: along an axis, reduction stages (each may use those
-- before it), then a map of each element to the output ('map', the input's shape) or a
-- post step of the reduced values to one output a row ('post', the axis removed).
-- docs/normalizations.md.
local function normalization_kernels(def, op, fail, filter)
  if (def.map == nil) == (def.post == nil) then
    fail("give 'map' (an output of the input's shape) or 'post' (one output a row), one of them")
  end
  local seen = {}
  local args = signature.parse(def.inputs or "T x", "inputs", true, seen, fail, true)
  local outputs = signature.parse(def.outputs or "T out", "outputs", false, seen, fail)
  if #outputs ~= 1 then fail("outputs: a normalization writes one output, got %d", #outputs) end
  local rows = 0
  for _, a in ipairs(args) do
    a.param = a.name
    if not a.scalar and not a.column then rows = rows + 1 end
  end
  if rows ~= 1 or args[1].scalar or args[1].column then
    fail("inputs: the first input is the tensor normalized along the axis, and the only one that is "
      .. "neither a column nor a scalar")
  end
  outputs[1].param = outputs[1].name
  local function own_name(name, what)
    if name:match("^tkh") or name:match("^p_") or name == "a" or name == "b" or name == "n" then
      fail("%s: the name '%s' is the kernel's own (names starting with tkh or p_, and a, b, n, are "
        .. "taken)", what, name)
    end
  end
  for _, a in ipairs(args) do own_name(a.name, "inputs") end
  own_name(outputs[1].name, "outputs")
  local all = {}
  for _, a in ipairs(args) do if a.type ~= "ACC" then all[#all + 1] = a end end
  if outputs[1].type ~= "ACC" then all[#all + 1] = outputs[1] end
  local placeholders = signature.placeholders(all)
  if #placeholders > 1 or (placeholders[1] and placeholders[1] ~= "T") then
    fail("the signature's placeholders are T (bound by 'types') and ACC (the accumulator), got %s",
      table.concat(placeholders, ", "))
  end
  if type(def.reductions) ~= "table" or #def.reductions == 0 then
    fail("'reductions' must be a non-empty list of { name, identity = ..., combine = ..., map = ..., post = ... }")
  end
  op.arity = #args
  for _, a in ipairs(args) do if a.scalar then op.arity = op.arity - 1 end end
  local kernels = {}
  for _, tname in ipairs(expand_types(def.types, fail)) do
    local t = types.by_name[tname]
    if t.domain ~= "float" then fail("normalizations are for float types, not %s", tname) end
    local acc_name = lookup(type(def.accumulator) == "table" and def.accumulator or nil, tname)
      or (type(def.accumulator) == "string" and def.accumulator) or (t.bits == 16 and "f32" or tname)
    local acc = types.by_name[acc_name]
    if not acc or acc.domain ~= "float" then fail("accumulator for %s: '%s' is not a float type", tname, tostring(acc_name)) end
    local function typed(o)
      local x = types.by_name[o.type == "T" and tname or o.type == "ACC" and acc.name or o.type]
      return { name = o.name, type = x, scalar = o.scalar, column = o.column, default = o.default, param = o.param }
    end
    local k = { op = op, type = t, label = tname, binding = { T = tname }, acc = acc, args = {},
                inputs = {}, columns = {}, scalars = {}, stages = {},
                degradations = per_type_list(def.degradations, "degradations", tname, fail) }
    for _, a in ipairs(args) do
      local x = typed(a)
      k.args[#k.args + 1] = x
      if x.scalar then k.scalars[#k.scalars + 1] = x else k.inputs[#k.inputs + 1] = x end
      if x.column then k.columns[#k.columns + 1] = x end
    end
    k.outputs = { typed(outputs[1]) }
    k.outputs[1].compare = "bound"
    k.output_names = { outputs[1].name }
    k.out_type = k.outputs[1].type
    -- What each expression may name, growing stage by stage.
    local names = { T = "type", ACC = "type", OUT = "type", n = "operand" }
    local exact = { n = true }
    for _, x in ipairs(k.args) do names[x.name], exact[x.name] = "operand", true end
    local function check(text, what, extra)
      check_expression(text, what, fail)
      local scope = {}
      for name, kind in pairs(names) do scope[name] = kind end
      for _, name in ipairs(extra or {}) do scope[name] = "operand" end
      signature.check_names(text, what, scope, fail)
      -- The oracle's bound must follow it: parse it and write its bound once here.
      local ok, err = pcall(function()
        local tree = expr.parse(text, function(w) return names[w] == "type" or signature.is_c_type(w) end)
        local env = { name = function() return "v" end, literal = function() return "0" end,
                      ulps = function() return "0" end,
                      exact = function(name) return exact[name] or false end }
        expr.bound_c(tree, text, env)
        return tree
      end)
      if not ok then fail("%s for %s: %s", what, tname, err) end
      return err
    end
    for i, stage in ipairs(def.reductions) do
      local what = ("reductions[%d]"):format(i)
      if type(stage) ~= "table" or not is_identifier(stage[1]) or names[stage[1]] then
        fail("%s must start with a new lower-case name, as { \"m\", identity = ..., combine = ... }", what)
      end
      own_name(stage[1], what)
      for key in pairs(stage) do
        if key ~= 1 and key ~= "identity" and key ~= "combine" and key ~= "map" and key ~= "post" then
          fail("%s: unknown field '%s' (known: identity, combine, map, post)", what, tostring(key))
        end
      end
      local function field(key, default)
        local v = stage[key]
        if type(v) == "table" then check_keys(v, what .. "." .. key, fail) v = lookup(v, tname) end
        if v == nil then v = default end
        if v == nil then fail("%s: missing '%s'", what, key) end
        return v
      end
      local st = { name = stage[1], identity = field("identity"), combine = field("combine"),
                   map = field("map", k.inputs[1].name), post = field("post", "a") }
      st.fold = FOLDS[st.combine:gsub("%s+", " ")]
      if not st.fold then
        fail("%s: combine '%s' must be a sum (a + b) or fmax / fmin (a, b): the oracle bounds those folds",
          what, st.combine)
      end
      st.map_tree = check(st.map, what .. ".map")
      st.identity_tree = check(st.identity, what .. ".identity")
      check(st.combine, what .. ".combine", { "a", "b" })
      st.post_tree = check(st.post, what .. ".post", { "a" })
      k.stages[i] = st
      names[st.name] = "operand"
      -- The largest or smallest of elements read as they are is exact on both sides, so
      -- a condition may use it (logsumexp's row of -inf).
      exact[st.name] = st.fold ~= "sum" and exact[st.map] == true and st.post == "a"
    end
    if def.map ~= nil then
      k.map = type(def.map) == "table" and lookup(def.map, tname) or def.map
      if k.map == nil then fail("no map for type '%s'", tname) end
      k.map_tree = check(k.map, "map")
      k.reuse = reuse_of(k, function(w) return names[w] == "type" or signature.is_c_type(w) end)
    else
      k.post = type(def.post) == "table" and lookup(def.post, tname) or def.post
      if k.post == nil then fail("no post for type '%s'", tname) end
      for _, x in ipairs(k.args) do
        if not x.scalar then names[x.name] = nil end
      end
      k.post_tree = check(k.post, "post")
    end
    keep_kernel(kernels, k, op, def, tname, filter)
  end
  return kernels
end

local function validate(shape, def, where, seen, filter)
  local label = type(def) == "table" and type(def.name) == "string" and def.name or "?"
  local function fail(fmt, ...)
    errors.raise("%s: op '%s': " .. fmt, where, label, ...)
  end
  local fields = SHAPES[shape]
  if type(def) ~= "table" then fail("expected a table, got %s", type(def)) end
  for _, k in ipairs(sorted_keys(def)) do
    if not fields[k] then
      fail("unknown field '%s' (known: %s)", k, table.concat(sorted_keys(fields), ", "))
    end
  end
  for _, k in ipairs(sorted_keys(fields)) do
    if fields[k] == "required" and def[k] == nil then fail("missing field '%s'", k) end
  end
  if not is_identifier(def.name) then
    fail("name must be a lower-case C identifier of at most 40 characters ([a-z][a-z0-9_]*)")
  end
  if seen[def.name] then fail("defined twice (first at %s)", seen[def.name]) end
  if type(def.semantics) ~= "string" or def.semantics == "" then
    fail("'semantics' must be a non-empty string")
  end
  local op = {
    name = def.name, shape = shape, semantics = def.semantics, where = where,
    obligations = string_list(def.obligations, "obligations", fail),
    non_claims = string_list(def.non_claims, "non_claims", fail),
  }
  local build = { elementwise = elementwise_kernels, reduction = reduction_kernels,
                  normalization = normalization_kernels }
  op.kernels = build[shape](def, op, fail, filter)
  seen[def.name] = where
  return op
end

-- For op files: a library function's documented bound, { nvidia = { f32, f64 }, amd = ... }.
local function function_ulps(name)
  if not functions.ULPS[name] then errors.raise("function_ulps: no bound is known for '%s'", tostring(name)) end
  local out = {}
  for _, platform in ipairs { "nvidia", "amd" } do
    out[platform] = { f32 = functions.ulps(name, platform, 32), f64 = functions.ulps(name, platform, 64) }
  end
  return out
end

-- Loads op files in order, each under the sandbox's budgets (tkh.sandbox). filter.types /
-- filter.ops: nil, or sets of names to keep. Returns the list of ops (an op filtered out
-- entirely keeps an empty kernel list).
function M.load(paths, filter)
  local ops, seen = {}, {}
  filter = filter or {}
  for _, path in ipairs(paths) do
    local env = { ipairs = ipairs, pairs = pairs, tostring = tostring, type = type,
                  string = sandbox.library("string"), table = sandbox.library("table"),
                  math = sandbox.library("math"), function_ulps = function_ulps }
    for shape in pairs(SHAPES) do
      env[shape] = function(def)
        local info = debug.getinfo(2, "Sl")
        ops[#ops + 1] = validate(shape, def, info.source:sub(2) .. ":" .. info.currentline, seen, filter)
      end
    end
    local f, err = io.open(path, "rb")
    if not f then errors.raise("%s", err) end
    local text = f:read("a")
    f:close()
    local chunk, cerr = load(text, "@" .. path, "t", env)
    if not chunk then errors.raise("%s", errors.located(cerr, path)) end
    local ok, rerr = pcall(sandbox.run, "op file", path, nil, chunk)
    if not ok then errors.rethrow(rerr) end
  end
  return ops
end

return M
