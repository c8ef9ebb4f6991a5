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
    compute = "required", steps = "optional", reference = "optional", compare = "optional",
    degradations = "optional", obligations = "optional", non_claims = "optional",
  },
  reduction = {
    name = "required", types = "required", semantics = "required", combine = "required",
    identity = "required", reference = "optional", compare = "optional",
    degradations = "optional", obligations = "optional", non_claims = "optional",
  },
}

-- How the oracle compares device and CPU results (docs/semantics.md). 'ulp' is declared
-- with its bound, compare = { ulps = N }; its text names the bound (M.describe).
M.COMPARISONS = {
  exact = "exact: every element bit-equal to the oracle's (any NaN equals any NaN)",
  sum_bound = "bounded: |device - accurate sum| <= depth * u * sum|x| + storage rounding + "
    .. "underflow, depth = the most additions on one path of the device's tree",
  ulp = "within a bound in ulps of the op's expression (or its 'reference') evaluated in a wider type",
}

-- A ulp-rule kernel's bound on a platform ("amd", "nvidia"; the larger for any other, as
-- for a generator run outside CMake).
function M.bound(k, platform)
  return k.ulps[platform] or math.max(k.ulps.amd, k.ulps.nvidia)
end

-- The comparison of one kernel, in words, for the registry, the manifest and reports.
function M.describe(k, platform)
  if k.compare ~= "ulp" then return M.COMPARISONS[k.compare] end
  return string.format("within %s ulps of %s: |device - reference| / ulp(reference), the "
    .. "%s evaluated in %s and not rounded; NaN, infinities, signed zeros and overflow "
    .. "by rule", M.format_ulps(M.bound(k, platform)), k.type.name,
    k.reference and "op's reference expression" or "expression", k.type.reference)
end

-- A bound as written in texts: "2", "0.5", "1.25".
function M.format_ulps(n)
  return (string.format("%.6g", n))
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

-- Names a step may not take: the operands and the macros around an op's expression.
local RESERVED = { a = true, b = true, c = true, T = true, U = true, W = true, TMIN = true,
                   TMAX = true, BITS = true }

-- 'steps' of one type: { { "NAME", "expression" }, ... }, each a constant the next steps
-- and the compute expression may use (the generated function declares them in order).
local function parse_steps(list, tname, arity, fail)
  if list == nil then return {} end
  if type(list) ~= "table" then fail("'steps' for %s must be a list of { name, expression }", tname) end
  local out, named = {}, {}
  for i, step in ipairs(list) do
    if type(step) ~= "table" or type(step[1]) ~= "string" or step[3] ~= nil then
      fail("steps[%d] for %s must be { name, expression }", i, tname)
    end
    local name = step[1]
    if not name:match("^[%a_][%w_]*$") or #name > 40 or RESERVED[name] then
      fail("step name '%s' for %s must be a C identifier other than a, b, c, T, U, W, TMIN, "
        .. "TMAX and BITS", name, tname)
    end
    if named[name] then fail("step '%s' for %s is defined twice", name, tname) end
    check_expression(step[2], "step " .. name, arity, fail)
    named[name] = true
    out[i] = { name = name, expr = step[2] }
  end
  return out
end

-- A kernel's comparison: "exact", "sum_bound", or "ulp" with its bound from { ulps = N }.
local function parse_compare(value, shape, t, fail)
  if value == nil then return "exact" end
  if type(value) == "table" then
    for _, key in ipairs(sorted_keys(value)) do
      if key ~= "ulps" then fail("unknown compare field '%s' (known: ulps)", key) end
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
      fail("compare { ulps = ... } is for elementwise ops over float types, not %s %s", t.name, shape)
    end
    return "ulp", ulps
  end
  if value == "ulp" then fail("compare 'ulp' needs its bound: compare = { ulps = N }") end
  if not M.COMPARISONS[value] then
    fail("unknown comparison '%s' (known: exact, sum_bound, or { ulps = N })", tostring(value))
  end
  return value
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
  -- One comparison or one list of steps for every type (compare = "exact", { ulps = 2 };
  -- steps = { { "D", "a - b" } }) is the table keyed 'any' that holds it.
  local per_type = { compare = def.compare, steps = def.steps }
  if type(def.compare) == "string" or (type(def.compare) == "table" and def.compare.ulps ~= nil) then
    per_type.compare = { any = def.compare }
  end
  if type(def.steps) == "table" and #def.steps > 0 then per_type.steps = { any = def.steps } end
  for _, field in ipairs { main, "reference", "identity", "compare", "steps" } do
    if fields[field] then check_keys(per_type[field] or def[field], field, fail) end
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
                steps = parse_steps(lookup(per_type.steps, tname), tname, arity, fail),
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
    k.compare, k.ulps = parse_compare(lookup(per_type.compare, tname), shape, k.type, fail)
    local text = expr
    for _, step in ipairs(k.steps) do text = text .. " " .. step.expr end
    if k.compare == "exact" and k.type.domain == "float" then
      for word in text:gmatch("[%a_][%w_]*") do
        if M.INEXACT_FUNCTIONS[word] or word:match("^tkh_fast_") then
          fail("%s expression for %s calls %s, whose device and host results differ by ulps: "
            .. "compare it within a bound, compare = { ulps = N } (docs/op-files.md)", main, tname, word)
        end
      end
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
