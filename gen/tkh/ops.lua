-- Loads and validates op files. An op file is Lua run in a sandbox that offers one
-- declaration per kernel shape (only 'elementwise' so far); each call is checked at
-- once and an error names the file and the line of the call:
--   ops/core.lua:14: op 'add': unknown type 'i33' (known: i8, i16, ...)
local types = require "tkh.types"
local errors = require "tkh.errors"

local M = {}

local FIELDS = {
  name = "required", arity = "required", types = "required", semantics = "required",
  compute = "required", degradations = "optional", obligations = "optional",
  non_claims = "optional",
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
local function check_expression(expr, arity, fail)
  if type(expr) ~= "string" or expr:match("^%s*$") then
    fail("compute expression must be a non-empty string, got %s", type(expr))
  end
  local bad = expr:match("[;{}#\\\n\r`@$]") or expr:match("/%*") or expr:match("//")
  if bad then
    fail("compute expression '%s' contains '%s' (only one C expression is allowed)", expr, bad)
  end
  if arity == 1 then
    for word in expr:gmatch("[%a_][%w_]*") do
      if word == "b" then fail("compute expression '%s' uses operand 'b' but arity is 1", expr) end
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

local function validate(def, where, seen, type_filter)
  local label = type(def) == "table" and type(def.name) == "string" and def.name or "?"
  local function fail(fmt, ...)
    errors.raise("%s: op '%s': " .. fmt, where, label, ...)
  end
  if type(def) ~= "table" then fail("expected a table, got %s", type(def)) end
  for k in pairs(def) do
    if not FIELDS[k] then
      fail("unknown field '%s' (known: %s)", tostring(k), table.concat(sorted_keys(FIELDS), ", "))
    end
  end
  for _, k in ipairs(sorted_keys(FIELDS)) do
    if FIELDS[k] == "required" and def[k] == nil then fail("missing field '%s'", k) end
  end
  if not is_identifier(def.name) then
    fail("name must be a lower-case C identifier of at most 40 characters ([a-z][a-z0-9_]*)")
  end
  if seen[def.name] then fail("defined twice (first at %s)", seen[def.name]) end
  if math.type(def.arity) ~= "integer" or def.arity < 1 or def.arity > 2 then
    fail("arity must be 1 or 2, got %s", tostring(def.arity))
  end
  if type(def.semantics) ~= "string" or def.semantics == "" then
    fail("'semantics' must be a non-empty string")
  end
  if type(def.types) ~= "table" or #def.types == 0 then fail("'types' must be a non-empty list") end
  if type(def.compute) ~= "table" then fail("'compute' must be a table") end

  local op = {
    name = def.name, arity = def.arity, semantics = def.semantics, where = where,
    degradations = string_list(def.degradations, "degradations", fail),
    obligations = string_list(def.obligations, "obligations", fail),
    non_claims = string_list(def.non_claims, "non_claims", fail),
    kernels = {},
  }
  for key in pairs(def.compute) do
    local known = key == "any" or key == "integer" or key == "signed" or key == "unsigned"
      or types.is_type(key)
    if not known then
      fail("unknown compute key '%s' (use a type name, signed, unsigned, integer or any)",
        tostring(key))
    end
  end
  local listed = {}
  for _, tname in ipairs(def.types) do
    if not types.is_type(tname) then
      fail("unknown type '%s' (known: %s)", tostring(tname), table.concat(types.order, ", "))
    end
    if listed[tname] then fail("type '%s' listed twice", tname) end
    listed[tname] = true
    local expr
    for _, key in ipairs(types.compute_keys(tname)) do
      expr = expr or def.compute[key]
    end
    if expr == nil then
      fail("no compute expression for type '%s' (give one of: %s)", tname,
        table.concat(types.compute_keys(tname), ", "))
    end
    check_expression(expr, def.arity, fail)
    if not type_filter or type_filter[tname] then
      op.kernels[#op.kernels + 1] = { op = op, type = types.by_name[tname], expr = expr }
    end
  end
  seen[def.name] = where
  return op
end

-- Loads op files in order. 'display' maps a path to the name errors show.
-- type_filter: nil, or a set of type names to keep. Returns the list of ops.
function M.load(paths, type_filter)
  local ops, seen = {}, {}
  for _, path in ipairs(paths) do
    local env = { ipairs = ipairs, pairs = pairs, string = string, table = table,
                  math = math, tostring = tostring, type = type }
    env.elementwise = function(def)
      local info = debug.getinfo(2, "Sl")
      local where = info.short_src .. ":" .. info.currentline
      ops[#ops + 1] = validate(def, where, seen, type_filter)
    end
    local f, err = io.open(path, "rb")
    if not f then errors.raise("%s", err) end
    local text = f:read("a")
    f:close()
    local chunk, cerr = load(text, "@" .. path, "t", env)
    if not chunk then errors.raise("%s", cerr) end
    local ok, rerr = pcall(chunk)
    if not ok then errors.rethrow(rerr) end
  end
  return ops
end

return M
