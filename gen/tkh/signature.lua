-- Signatures of elementwise ops: the ordered, named, typed arrays and scalars an op
-- takes and the arrays it writes, as CuPy's ElementwiseKernel declares them:
--   inputs = "scalar T alpha, T x, scalar T beta, T y", outputs = "T out"
-- A type is a type name (f32, bool) or a placeholder (an upper-case identifier: T, From)
-- that 'types' binds to lists of types; every combination is one kernel.
local types = require "tkh.types"

local M = {}

-- The most arrays and scalars of each kind a kernel takes (tokitai_hip/kernel.h).
M.MAX = { inputs = 8, outputs = 4, scalars = 8 }

-- Names an operand or a step may not take: the macros around an op's expressions.
M.RESERVED = { T = true, U = true, W = true, TMIN = true, TMAX = true, BITS = true }

-- What an expression may name besides its operands, steps and placeholders: C's types,
-- keywords and limits, <math.h>'s functions and constants (op_math.h's spellings work on
-- the device too; C99's others are the expression's own risk), and helpers named tkh_*.
local KNOWN = {}
for name in ([[float double int unsigned signed char short long bool _Bool sizeof true false
    int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t
    INFINITY NAN FLT_MAX FLT_MIN FLT_EPSILON FLT_TRUE_MIN DBL_MAX DBL_MIN DBL_EPSILON
    DBL_TRUE_MIN INT8_MIN INT16_MIN INT32_MIN INT64_MIN INT8_MAX INT16_MAX INT32_MAX INT64_MAX
    UINT8_MAX UINT16_MAX UINT32_MAX UINT64_MAX
    exp exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan atan2 sinh cosh tanh asinh
    acosh atanh erf erfc pow hypot cbrt rsqrt sqrt floor ceil trunc rint round fma copysign
    fmin fmax fmod fabs isnan isinf isfinite signbit
    frexp ilogb ldexp logb modf scalbn scalbln lgamma tgamma nearbyint lrint llrint lround
    llround remainder remquo nan nextafter nexttoward fdim fpclassify isnormal isgreater
    isgreaterequal isless islessequal islessgreater isunordered HUGE_VAL HUGE_VALF SIZE_MAX
    CHAR_BIT INT_MIN INT_MAX UINT_MAX LONG_MIN LONG_MAX ULONG_MAX LLONG_MIN LLONG_MAX
    ULLONG_MAX]]):gmatch("[%w_]+") do
  KNOWN[name] = true
end

-- The C type names a cast may use: (float)x, (int64_t)i.
local C_TYPES = {}
for name in ("float double int unsigned signed char short long bool int8_t int16_t int32_t int64_t "
    .. "uint8_t uint16_t uint32_t uint64_t size_t"):gmatch("%S+") do
  C_TYPES[name] = true
end
function M.is_c_type(word) return C_TYPES[word] == true end

-- C's own names beyond the list: <float.h>'s FLT_/DBL_ macros and <math.h>'s FP_ ones,
-- and the float and long double forms of the math functions (expf, sqrtl).
local function known(word)
  if KNOWN[word] or word:match("^FLT_[A-Z0-9_]+$") or word:match("^DBL_[A-Z0-9_]+$")
      or word:match("^FP_[A-Z]+$") then
    return true
  end
  local base = word:match("^(%l[%l%d]*)[fl]$")
  return base ~= nil and KNOWN[base] ~= nil
end

-- The identifiers of a C expression, skipping numbers (0x1.8p-3f, 1e-30f, 10u).
function M.identifiers(expr)
  local out, i = {}, 1
  while i <= #expr do
    local c = expr:sub(i, i)
    if c:match("%d") or (c == "." and expr:sub(i + 1, i + 1):match("%d")) then
      local j = i
      while j <= #expr do
        local d = expr:sub(j, j)
        if d:match("[%w_.]") then
          j = j + 1
        elseif (d == "+" or d == "-") and expr:sub(j - 1, j - 1):match("[eEpP]") then
          j = j + 1
        else
          break
        end
      end
      i = j
    elseif c:match("[%a_]") then
      local word = expr:match("^[%a_][%w_]*", i)
      out[#out + 1] = word
      i = i + #word
    else
      i = i + 1
    end
  end
  return out
end

-- The operands and steps in scope, for the message of an undeclared name.
local function list_names(names)
  local list = {}
  for name, kind in pairs(names) do
    if kind == "operand" or kind == "step" then list[#list + 1] = name end
  end
  table.sort(list)
  return #list > 0 and table.concat(list, ", ") or "none"
end

-- Fails when 'expr' names something that is neither in 'names' nor known to C (its
-- types, limits and <math.h>): a typo, or an operand the signature does not declare.
function M.check_names(expr, what, names, fail)
  for _, word in ipairs(M.identifiers(expr)) do
    if not (names[word] or known(word) or word:match("^tkh_")) then
      fail("%s expression '%s' uses '%s', which is not declared (operands, scalars and steps: %s)",
        what, expr, word, list_names(names))
    end
  end
end


-- C and C++ keywords, which no operand may be named.
local KEYWORDS = {}
for name in ([[auto break case char const continue default do double else enum extern float
    for goto if inline int long register restrict return short signed sizeof static struct
    switch typedef union unsigned void volatile while bool true false class new delete this
    template typename namespace operator private public protected virtual friend using
    try catch throw]]):gmatch("[%w_]+") do
  KEYWORDS[name] = true
end

local function is_name(s)
  return s:match("^[a-z][a-z0-9_]*$") ~= nil and #s <= 40 and not KEYWORDS[s] and not KNOWN[s]
    and not s:match("^tkh")
end

local function is_placeholder(s)
  return s:match("^[A-Z][A-Za-z0-9_]*$") ~= nil and #s <= 40 and (s == "T" or not M.RESERVED[s])
end

-- Parses "scalar T alpha, T x" into { { name, type, scalar }, ... } ('type' a type name
-- or a placeholder). 'seen' collects names across the fields of one signature. Where
-- 'columns_allowed' (normalizations, matrix products), "column T w = 1" declares a 1-D tensor
-- along the axis (a matrix product's: along n),
-- optional when it has a default (a literal): { name, type, column = true, default }. Where
-- it is "product" (matrix products), "row T s = 1" declares one along m ({ row = true }),
-- and any array may have a default.
function M.parse(text, field, scalars_allowed, seen, fail, columns_allowed)
  if type(text) ~= "string" or text:match("^%s*$") then
    fail("'%s' must be a string such as \"T x, T y\", got %s", field, type(text))
  end
  local out = {}
  for part in (text .. ","):gmatch("([^,]*),") do
    local words = {}
    for w in part:gmatch("%S+") do words[#words + 1] = w end
    local scalar, column, row, default = words[1] == "scalar", words[1] == "column", words[1] == "row", nil
    if scalar or column or row then table.remove(words, 1) end
    if column and not columns_allowed then fail("%s: only a normalization's or a matrix product's inputs may be columns ('%s')", field, part) end
    if row and columns_allowed ~= "product" then fail("%s: only a matrix product's inputs may be rows ('%s')", field, part) end
    if (column or row or (columns_allowed == "product" and not scalar)) and words[3] == "=" then
      default = words[4]
      if #words ~= 4 or not default:match("^[-+]?%d[%w.+-]*$") then
        fail("%s: the default of '%s' must be a number, as in 'column T w = 1'", field, tostring(words[2]))
      end
      words[3], words[4] = nil, nil
    end
    if #words ~= 2 then
      fail("%s: '%s' must be a type and a name%s", field, part:match("^%s*(.-)%s*$"),
        scalars_allowed and ", after 'scalar' for a value passed by value" or "")
    end
    if scalar and not scalars_allowed then fail("%s: only inputs may be scalars ('%s')", field, part) end
    local tname, name = words[1], words[2]
    if not (types.is_type(tname) or is_placeholder(tname)) then
      fail("%s: unknown type '%s' for '%s' (known: %s; or a placeholder: an upper-case name "
        .. "that 'types' binds)", field, tname, name, table.concat(types.order, ", "))
    end
    if not is_name(name) or M.RESERVED[name] then
      fail("%s: '%s' is not a lower-case C identifier of at most 40 characters, other than C's "
        .. "keywords and the math functions", field, name)
    end
    if seen[name] then fail("%s: name '%s' is declared twice", field, name) end
    seen[name] = true
    out[#out + 1] = { name = name, type = tname, scalar = scalar, column = column or nil, row = row or nil,
      default = default }
  end
  return out
end

-- The placeholders of a signature, in order of first appearance.
function M.placeholders(operands)
  local out, seen = {}, {}
  for _, o in ipairs(operands) do
    if not types.is_type(o.type) and not seen[o.type] then
      seen[o.type], out[#out + 1] = true, o.type
    end
  end
  return out
end

-- Every binding of the placeholders that 'spec' allows: a list of types binds a single
-- placeholder; a table { P = list, Q = list } binds each, all combinations in the order
-- of the placeholders. 'expand' turns a list of names and groups into type names.
function M.bindings(placeholders, spec, expand, fail)
  if #placeholders == 0 then
    if spec ~= nil then fail("'types' binds placeholders, but the signature has none") end
    return { {} }
  end
  if type(spec) ~= "table" then fail("'types' must be a non-empty list, or lists keyed by placeholder") end
  local lists = {}
  if #spec > 0 then
    if #placeholders > 1 then
      fail("'types' is a list, which binds one placeholder; the signature has %d (%s): give "
        .. "types = { %s = { ... }, ... }", #placeholders, table.concat(placeholders, ", "), placeholders[1])
    end
    lists[placeholders[1]] = expand(spec)
  else
    local used = {}
    for _, p in ipairs(placeholders) do used[p] = true end
    local keys = {}
    for key in pairs(spec) do keys[#keys + 1] = tostring(key) end
    table.sort(keys)
    for _, key in ipairs(keys) do
      if not used[key] then
        fail("'types' binds '%s', which the signature does not use (placeholders: %s)", key,
          table.concat(placeholders, ", "))
      end
    end
    for _, p in ipairs(placeholders) do
      if spec[p] == nil then fail("placeholder '%s' is not bound in 'types'", p) end
      lists[p] = expand(spec[p])
    end
  end
  local out = { {} }
  for _, p in ipairs(placeholders) do
    local next_out = {}
    for _, partial in ipairs(out) do
      for _, tname in ipairs(lists[p]) do
        local b = {}
        for q, t in pairs(partial) do b[q] = t end
        b[p] = tname
        next_out[#next_out + 1] = b
      end
    end
    out = next_out
  end
  return out
end

return M
