-- Loads and validates op files. An op file is Lua run in a sandbox that offers one
-- declaration per kernel shape (one module each in tkh/shapes); each call is checked at
-- once and an error names the file and the line of the call:
--   ops/core.lua:14: op 'add': unknown type 'i33' (known: i8, i16, ...)
local errors = require "tkh.errors"
local sandbox = require "tkh.sandbox"
local functions = require "tkh.functions"
local op_fields = require "tkh.op_fields"

local M = {}

-- Per shape, its module: 'fields' (each field, and whether it is required) and
-- kernels(def, op, fail, filter). Per-type tables (compute, reference, identity, compare)
-- are keyed by type name, family, domain or 'any' (tkh.types). A new shape is a module
-- in tkh/shapes and a line here.
-- The order is the runtime's: it numbers tkh_shape_kind (templates/shape_kinds.h.tpl), and
-- the runtime has one module per shape behind a table in that order (runtime/src/shapes).
M.SHAPE_ORDER = { "elementwise", "reduction", "normalization", "matmul" }
local SHAPES = {}
for _, name in ipairs(M.SHAPE_ORDER) do SHAPES[name] = require("tkh.shapes." .. name) end

-- How the oracle compares device and CPU results (tkh.op_fields, which checks them).
M.COMPARISONS = op_fields.COMPARISONS

-- The bound of an output under the ulp rule on a platform ("amd", "nvidia"; the larger
-- for any other, as for a generator run outside CMake).
function M.bound(o, platform)
  return o.ulps[platform] or math.max(o.ulps.amd, o.ulps.nvidia)
end

-- The comparison of one output, in words, for the registry, the manifest and reports.
function M.describe(o, platform)
  if o.comparison then return o.comparison end
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

-- Owned by the shapes that check against them; kept here for tkh.ops' readers.
M.INEXACT_FUNCTIONS = SHAPES.elementwise.INEXACT_FUNCTIONS
M.BOUNDED_POSTS = SHAPES.reduction.BOUNDED_POSTS

local sorted_keys, string_list = op_fields.sorted_keys, op_fields.string_list
local is_identifier = op_fields.is_identifier
M.is_identifier = is_identifier

local function validate(shape, def, where, seen, filter)
  local label = type(def) == "table" and type(def.name) == "string" and def.name or "?"
  local function fail(fmt, ...)
    errors.raise("%s: op '%s': " .. fmt, where, label, ...)
  end
  local fields = SHAPES[shape].fields
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
  op.kernels = SHAPES[shape].kernels(def, op, fail, filter)
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
