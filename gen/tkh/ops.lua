-- Loads and validates op files. An op file is Lua run in a sandbox that offers one
-- declaration per kernel shape ('elementwise', 'reduction'); each call is checked at
-- once and an error names the file and the line of the call:
--   ops/core.lua:14: op 'add': unknown type 'i33' (known: i8, i16, ...)
local types = require "tkh.types"
local errors = require "tkh.errors"
local sandbox = require "tkh.sandbox"

local M = {}

-- Per shape: each field, and whether it is required. Per-type tables (compute, reference,
-- identity, compare) are keyed by type name, family, domain or 'any' (tkh.types).
local SHAPES = {
  elementwise = {
    name = "required", arity = "required", types = "required", semantics = "required",
    compute = "required", reference = "optional", compare = "optional",
    degradations = "optional", obligations = "optional", non_claims = "optional",
  },
  reduction = {
    name = "required", types = "required", semantics = "required", combine = "required",
    identity = "required", reference = "optional", compare = "optional",
    degradations = "optional", obligations = "optional", non_claims = "optional",
  },
}

-- How the oracle compares device and CPU results (docs/semantics.md).
M.COMPARISONS = {
  exact = "exact: every element bit-equal to the oracle's (any NaN equals any NaN)",
  sum_bound = "bounded: |device - accurate sum| <= depth * u * sum|x| + storage rounding + "
    .. "underflow, depth = the most additions on one path of the device's tree",
}

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
local function check_expression(expr, what, arity, fail)
  if type(expr) ~= "string" or expr:match("^%s*$") then
    fail("%s expression must be a non-empty string, got %s", what, type(expr))
  end
  local bad = expr:match("[;{}#\\\n\r`@$]") or expr:match("/%*") or expr:match("//")
  if bad then
    fail("%s expression '%s' contains '%s' (only one C expression is allowed)", what, expr, bad)
  end
  local position = { a = 1, b = 2, c = 3 }
  for word in expr:gmatch("[%a_][%w_]*") do
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
      names = {}
      for _, t in ipairs(types.order) do
        local keys = types.keys(t)
        if entry == "any" or keys[2] == entry or keys[3] == entry then names[#names + 1] = t end
      end
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
  local arity = shape == "reduction" and 1 or def.arity
  if math.type(arity) ~= "integer" or arity < 1 or arity > 3 then
    fail("arity must be 1, 2 or 3, got %s", tostring(arity))
  end
  if type(def.semantics) ~= "string" or def.semantics == "" then
    fail("'semantics' must be a non-empty string")
  end
  local main = shape == "reduction" and "combine" or "compute"
  for _, field in ipairs { main, "reference", "identity", "compare" } do
    if fields[field] then check_keys(def[field], field, fail) end
  end

  local op = {
    name = def.name, shape = shape, arity = arity, semantics = def.semantics, where = where,
    obligations = string_list(def.obligations, "obligations", fail),
    non_claims = string_list(def.non_claims, "non_claims", fail),
    kernels = {},
  }
  for _, tname in ipairs(expand_types(def.types, fail)) do
    local expr = lookup(def[main], tname)
    if expr == nil then
      fail("no %s expression for type '%s' (give one of: %s)", main, tname,
        table.concat(types.keys(tname), ", "))
    end
    -- A reduction combines an accumulator a with an element b.
    check_expression(expr, main, shape == "reduction" and 2 or arity, fail)
    local k = { op = op, type = types.by_name[tname], expr = expr,
                degradations = per_type_list(def.degradations, "degradations", tname, fail) }
    k.reference = lookup(def.reference, tname)
    if k.reference ~= nil then
      check_expression(k.reference, "reference", shape == "reduction" and 2 or arity, fail)
    end
    if shape == "reduction" then
      k.identity = lookup(def.identity, tname)
      if k.identity == nil then fail("no identity for type '%s'", tname) end
      check_expression(k.identity, "identity", 1, fail)
    end
    k.compare = lookup(def.compare, tname) or "exact"
    if not M.COMPARISONS[k.compare] then
      fail("unknown comparison '%s' (known: %s)", tostring(k.compare),
        table.concat(sorted_keys(M.COMPARISONS), ", "))
    end
    if (not filter.types or filter.types[tname]) and (not filter.ops or filter.ops[def.name]) then
      op.kernels[#op.kernels + 1] = k
    end
  end
  seen[def.name] = where
  return op
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
                  math = sandbox.library("math") }
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
