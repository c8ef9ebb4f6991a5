-- The reduction shape: one kernel per type, folding a tensor to one value or to the best
-- element and its index (templates/reduction.*.tpl).
local types = require "tkh.types"
local signature = require "tkh.signature"
local op_fields = require "tkh.op_fields"
local check_expression, check_keys = op_fields.check_expression, op_fields.check_keys
local lookup, per_type_list = op_fields.lookup, op_fields.per_type_list
local expand_types, parse_compare = op_fields.expand_types, op_fields.parse_compare
local keep_kernel = op_fields.keep_kernel

local M = {}

M.fields = {
  name = "required", types = "required", semantics = "required", combine = "optional",
  identity = "optional", start = "optional", better = "optional", map = "optional", post = "optional",
  accumulator = "optional", output = "optional", reference = "optional", compare = "optional",
  degradations = "optional", obligations = "optional", non_claims = "optional",
}

-- Under sum_bound, the post steps whose error the bound follows (templates/reduction.c.tpl).
M.BOUNDED_POSTS = { ["a"] = "none", ["a / n"] = "mean", ["sqrt(a)"] = "sqrt" }

-- The kernels of one reduction declaration, in four parts as CuPy's ReductionKernel: a
-- map of each element x (default: x itself) to the accumulator type ACC (default: T,
-- f32 for f16 and bf16), an associative 'combine' of two accumulators a and b from
-- 'identity', and a 'post' step of the final accumulator a and the count n (an ACC)
-- to the output type OUT (default: T). The identity is also what a reduction over no
-- elements gives (through the post step, n = 0), as NumPy's ufuncs' identity is; a
-- reduction that has none (max: NumPy and torch refuse an empty one) declares where its
-- folds start instead, 'start', and refuses zero elements.
function M.kernels(def, op, fail, filter)
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

return M
