-- The C expressions of an op parsed into trees, and a tree written back as C that carries
-- a first-order error bound beside the value (docs/normalizations.md): where no result can
-- be compared bit for bit, the oracle evaluates the expression in a wide type as pairs
-- (value, bound on how far the device's evaluation in the compute type may be from it).
-- The subset: literals, names, casts to a placeholder or a C type, unary minus, + - * /,
-- calls, comparisons, && || ! and ?: (a branch only on operands with no error).
local M = {}

local function fail(text, fmt, ...)
  error(("expression '%s': " .. fmt):format(text, ...), 0)
end

local PUNCT = { "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/", "(", ")", ",", "?",
                ":", "<", ">", "!" }

local function tokens(text)
  local out, i = {}, 1
  while i <= #text do
    local c = text:sub(i, i)
    if c:match("%s") then
      i = i + 1
    elseif c:match("%d") or (c == "." and text:sub(i + 1, i + 1):match("%d")) then
      local j = i
      while j <= #text and (text:sub(j, j):match("[%w.]")
          or (text:sub(j, j):match("[+-]") and text:sub(j - 1, j - 1):match("[eEpP]"))) do
        j = j + 1
      end
      out[#out + 1] = { k = "num", text = text:sub(i, j - 1) }
      i = j
    elseif c:match("[%a_]") then
      local word = text:match("^[%w_]+", i)
      out[#out + 1] = { k = "name", text = word }
      i = i + #word
    else
      local p
      for _, q in ipairs(PUNCT) do
        if text:sub(i, i + #q - 1) == q then p = q break end
      end
      if not p then fail(text, "unexpected '%s'", c) end
      out[#out + 1] = { k = "punct", text = p }
      i = i + #p
    end
  end
  return out
end

-- Binary operators by precedence, lowest first (C's order).
local LEVELS = { { "||" }, { "&&" }, { "==", "!=" }, { "<", ">", "<=", ">=" }, { "+", "-" },
                 { "*", "/" } }

-- Parses 'text'; 'is_type(word)' says whether a parenthesized name is a cast.
function M.parse(text, is_type)
  local toks, pos = tokens(text), 1
  local function peek(v) local t = toks[pos] return t and t.text == v end
  local function expect(v)
    if not peek(v) then fail(text, "expected '%s' at '%s'", v, toks[pos] and toks[pos].text or "the end") end
    pos = pos + 1
  end
  local expression
  local function unary()
    local t = toks[pos]
    if not t then fail(text, "ends where an operand was expected") end
    if t.text == "-" or t.text == "+" or t.text == "!" then
      pos = pos + 1
      local arg = unary()
      if t.text == "+" then return arg end
      return { k = t.text == "-" and "neg" or "not", arg = arg }
    end
    if t.text == "(" then
      local nxt, after = toks[pos + 1], toks[pos + 2]
      if nxt and nxt.k == "name" and after and after.text == ")" and is_type(nxt.text) then
        pos = pos + 3
        return { k = "cast", type = nxt.text, arg = unary() }
      end
      pos = pos + 1
      local e = expression()
      expect(")")
      return e
    end
    pos = pos + 1
    if t.k == "num" then return { k = "num", text = t.text } end
    if t.k ~= "name" then fail(text, "unexpected '%s'", t.text) end
    if peek("(") then
      pos = pos + 1
      local args = {}
      if not peek(")") then
        repeat
          args[#args + 1] = expression()
        until not (peek(",") and (function() pos = pos + 1 return true end)())
      end
      expect(")")
      return { k = "call", name = t.text, args = args }
    end
    return { k = "name", name = t.text }
  end
  local function binary(level)
    if level > #LEVELS then return unary() end
    local left = binary(level + 1)
    while true do
      local t, matched = toks[pos], nil
      for _, op in ipairs(LEVELS[level]) do
        if t and t.k == "punct" and t.text == op then matched = op end
      end
      if not matched then return left end
      pos = pos + 1
      left = { k = "bin", op = matched, l = left, r = binary(level + 1) }
    end
  end
  function expression()
    local c = binary(1)
    if peek("?") then
      pos = pos + 1
      local a = expression()
      expect(":")
      return { k = "cond", c = c, t = a, f = expression() }
    end
    return c
  end
  local tree = expression()
  if pos <= #toks then fail(text, "unexpected '%s' after a whole expression", toks[pos].text) end
  return tree
end

-- A node's operands, in order.
function M.children(n)
  local out = {}
  for _, field in ipairs { "arg", "l", "r", "c", "t", "f" } do
    if n[field] then out[#out + 1] = n[field] end
  end
  for _, a in ipairs(n.args or {}) do out[#out + 1] = a end
  return out
end

-- The names a tree uses, each once, in order of first use.
function M.names(tree)
  local out, seen = {}, {}
  local function walk(n)
    if n.k == "name" and not seen[n.name] then
      seen[n.name] = true
      out[#out + 1] = n.name
    end
    for _, c in ipairs(M.children(n)) do walk(c) end
  end
  walk(tree)
  return out
end

-- Whether a tree calls a function of the device's math library (one not in EXACT: each costs
-- tens of instructions at every output).
function M.calls_library(tree)
  if tree.k == "call" and not M.EXACT[tree.name] then return true end
  for _, c in ipairs(M.children(tree)) do
    if M.calls_library(c) then return true end
  end
  return false
end

-- Whether trees a and b are the same expression, node for node.
function M.same(a, b)
  if a.k ~= b.k or a.text ~= b.text or a.name ~= b.name or a.op ~= b.op or a.type ~= b.type then
    return false
  end
  local ca, cb = M.children(a), M.children(b)
  if #ca ~= #cb then return false end
  for i, x in ipairs(ca) do
    if not M.same(x, cb[i]) then return false end
  end
  return true
end

-- The tree as C (parenthesized throughout), each subtree for which replace(subtree)
-- gives C written as that.
function M.c(tree, replace)
  local function emit(n)
    local r = replace and replace(n)
    if r then return r end
    if n.k == "num" then return n.text end
    if n.k == "name" then return n.name end
    if n.k == "cast" then return ("((%s)%s)"):format(n.type, emit(n.arg)) end
    if n.k == "neg" then return ("(-%s)"):format(emit(n.arg)) end
    if n.k == "not" then return ("(!%s)"):format(emit(n.arg)) end
    if n.k == "bin" then return ("(%s %s %s)"):format(emit(n.l), n.op, emit(n.r)) end
    if n.k == "cond" then return ("(%s ? %s : %s)"):format(emit(n.c), emit(n.t), emit(n.f)) end
    local args = {}
    for i, a in ipairs(n.args) do args[i] = emit(a) end
    return ("%s(%s)"):format(n.name, table.concat(args, ", "))
  end
  return emit(tree)
end

-- Calls with a bound rule (tokitai_hip/codegen/error_bound.h): how many arguments, and whether
-- the device's library adds an error of its own (its bound in ulps, from 'ulps').
M.CALLS = {
  exp = 1, exp2 = 1, expm1 = 1, log = 1, log2 = 1, log1p = 1, tanh = 1, erf = 1, rsqrt = 1,
  sqrt = 1, fabs = 1, fmax = 2, fmin = 2, tkh_relu = 1,
}
M.EXACT = { fabs = true, fmax = true, fmin = true, sqrt = true, tkh_relu = true }
local EXACT = M.EXACT

-- The tree as C of the pair type tkh_eb (tokitai_hip/codegen/error_bound.h). 'env' gives
-- name(n), the C of a name's pair; exact(n), whether a name is read, not computed (an
-- input, a column, a scalar: what a condition may use); ulps(f), the device's bound for
-- library function f in ulps of the compute type; literal(text), the C of the value the
-- device holds for a literal. U is the compute type's unit roundoff.
function M.bound_c(tree, text, env)
  local function emit(n)
    if n.k == "num" then
      local wide = n.text:gsub("[fF]$", "")
      return ("tkh_eb_const((long double)%s, (long double)%s)"):format(wide, env.literal(n.text))
    elseif n.k == "name" then
      return env.name(n.name)
    elseif n.k == "cast" then
      return ("tkh_eb_round(%s, U)"):format(emit(n.arg))
    elseif n.k == "neg" then
      return ("tkh_eb_neg(%s)"):format(emit(n.arg))
    elseif n.k == "bin" then
      local f = ({ ["+"] = "add", ["-"] = "sub", ["*"] = "mul", ["/"] = "div" })[n.op]
      if not f then fail(text, "'%s' gives a truth value, which only the condition of a ?: may use", n.op) end
      return ("tkh_eb_%s(%s, %s, U)"):format(f, emit(n.l), emit(n.r))
    elseif n.k == "call" then
      local arity = M.CALLS[n.name]
      if not arity then
        local known = {}
        for k in pairs(M.CALLS) do known[#known + 1] = k end
        table.sort(known)
        fail(text, "calls '%s', which has no error-bound rule (those with one: %s)", n.name,
          table.concat(known, ", "))
      end
      if #n.args ~= arity then fail(text, "'%s' takes %d argument(s), got %d", n.name, arity, #n.args) end
      local args = {}
      for i, a in ipairs(n.args) do args[i] = emit(a) end
      if not EXACT[n.name] then args[#args + 1] = ("(long double)%s"):format(env.ulps(n.name)) end
      if not EXACT[n.name] or n.name == "sqrt" then args[#args + 1] = "U" end
      return ("tkh_eb_%s(%s)"):format(n.name, table.concat(args, ", "))
    elseif n.k == "cond" then
      return ("((%s) ? %s : %s)"):format(M.condition_c(n.c, text, env), emit(n.t), emit(n.f))
    end
    fail(text, "'!' gives a truth value, which only the condition of a ?: may use")
  end
  return emit(tree)
end

-- A condition as C over the values of operands the device reads exactly (so it takes
-- the branch the reference takes) and literals.
function M.condition_c(tree, text, env)
  local function emit(n)
    if n.k == "name" then
      if not env.exact(n.name) and not n.name:match("^[A-Z][A-Z0-9_]*$") then
        fail(text, "the condition uses '%s', which is computed, not read: the device might take the "
          .. "other branch (a condition may use inputs, columns, scalars and literals)", n.name)
      end
      return ("(%s).v"):format(env.name(n.name))
    end
    if n.k == "num" then return n.text end
    if n.k == "cast" then return emit(n.arg) end -- of an exact value: exact in any float type here
    if n.k == "not" then return ("!(%s)"):format(emit(n.arg)) end
    if n.k == "neg" then return ("-(%s)"):format(emit(n.arg)) end
    if n.k == "bin" then return ("(%s %s %s)"):format(emit(n.l), n.op, emit(n.r)) end
    fail(text, "a condition may only compare operands and literals, not use '%s'", n.name or n.k)
  end
  return emit(tree)
end

return M
