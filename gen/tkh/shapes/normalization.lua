-- The normalization shape: one kernel per float type, reduction stages along an axis and
-- then a map or a post step (templates/normalization.*.tpl, docs/normalizations.md).
local types = require "tkh.types"
local expr = require "tkh.expr"
local signature = require "tkh.signature"
local op_fields = require "tkh.op_fields"
local check_expression, check_keys = op_fields.check_expression, op_fields.check_keys
local lookup, per_type_list = op_fields.lookup, op_fields.per_type_list
local expand_types, keep_kernel = op_fields.expand_types, op_fields.keep_kernel
local is_identifier = op_fields.is_identifier

local M = {}

M.fields = {
  name = "required", types = "required", semantics = "required", inputs = "optional",
  outputs = "optional", accumulator = "optional", reductions = "required", map = "optional",
  post = "optional", degradations = "optional", obligations = "optional", non_claims = "optional",
}

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
function M.kernels(def, op, fail, filter)
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

return M
