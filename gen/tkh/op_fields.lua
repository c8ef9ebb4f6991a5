-- What several op shapes check in their fields (tkh.shapes.*) and how the oracle may
-- compare results; tkh.ops re-exports the comparisons.
local types = require "tkh.types"

local M = {}

-- How the oracle compares device and CPU results (docs/semantics.md). 'ulp' is declared
-- with its bound, compare = { ulps = N }; its text names the bound (tkh.ops.describe).
M.COMPARISONS = {
  exact = "exact: every element bit-equal to the oracle's (any NaN equals any NaN)",
  sum_bound = "bounded: |device - accurate sum| <= depth * u * sum|x| + storage rounding + "
    .. "underflow, depth = the most additions on one path of the device's tree",
  ulp = "within a bound in ulps of the op's expression (or its 'reference') evaluated in a wider type",
  bound = "within the error bound carried through the op's expressions beside their exact value (long "
    .. "double): every rounding of the compute type, the device library's documented error and the "
    .. "depth of its folds (docs/normalizations.md)",
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

-- Adds kernel k of type tname to 'kernels' unless the filter leaves it out; the op binds
-- the type either way (a reduction's or a normalization's, one type each).
local function keep_kernel(kernels, k, op, def, tname, filter)
  if (not filter.types or filter.types[tname]) and (not filter.ops or filter.ops[def.name]) then
    kernels[#kernels + 1] = k
  end
  op.bound_types = op.bound_types or {}
  op.bound_types[tname] = true
end

M.sorted_keys, M.is_identifier, M.check_expression = sorted_keys, is_identifier, check_expression
M.string_list, M.per_type_list, M.lookup = string_list, per_type_list, lookup
M.check_keys, M.expand_types = check_keys, expand_types
M.parse_compare, M.keep_kernel = parse_compare, keep_kernel

return M
