-- A small template preprocessor of our own.
--
-- A line whose first non-blank character is '@' is Lua; every other line is text in
-- which $(expr) inlines the value of a Lua expression (parentheses balance outside
-- quoted strings).
-- Each template line becomes exactly one line of the compiled chunk, so a Lua error
-- reads 'templates/elementwise.hip.tpl:12: ...'. '@' cannot start a C, HIP or JSON line,
-- unlike Penlight's '#', which clashes with '#include'.
local errors = require "tkh.errors"
local sandbox = require "tkh.sandbox"

local M = {}

local function text_to_lua(line, where)
  local parts, pos = {}, 1
  while true do
    local s = line:find("$(", pos, true)
    if not s then break end
    if s > pos then parts[#parts + 1] = string.format("%q", line:sub(pos, s - 1)) end
    local depth, i = 1, s + 2
    while depth > 0 do
      local c = line:sub(i, i)
      if c == "" then error(where .. ": unclosed '$(' in template text", 0) end
      if c == "(" then depth = depth + 1 elseif c == ")" then depth = depth - 1
      elseif c == '"' or c == "'" then -- skip a quoted string: it may hold parentheses
        local close = line:find(c, i + 1, true)
        if not close then error(where .. ": unclosed string inside '$('", 0) end
        i = close
      end
      i = i + 1
    end
    parts[#parts + 1] = "_str(" .. line:sub(s + 2, i - 2) .. ")"
    pos = i
  end
  if pos <= #line then parts[#parts + 1] = string.format("%q", line:sub(pos)) end
  parts[#parts + 1] = '"\\n"'
  return "_put(" .. table.concat(parts, ", ") .. ")"
end

-- Turns template text into Lua source, one chunk line per template line.
function M.translate(text, name)
  local out, lineno = {}, 0
  for line in (text:gsub("\n$", "") .. "\n"):gmatch("(.-)\n") do
    lineno = lineno + 1
    local code = line:match("^%s*@(.*)$")
    out[#out + 1] = code or text_to_lua(line, name .. ":" .. lineno)
  end
  return table.concat(out, "\n")
end

-- What a template may use beside its values: the sandbox's globals (tkh.sandbox).
local function template_globals()
  local g = { ipairs = ipairs, pairs = pairs, next = next, select = select, type = type,
              tostring = tostring, tonumber = tonumber, error = error, assert = assert,
              setmetatable = setmetatable, rawget = rawget, rawequal = rawequal,
              rawlen = rawlen, rawset = rawset }
  for _, lib in ipairs { "string", "table", "math", "utf8" } do g[lib] = sandbox.library(lib) end
  return g
end

-- Compiles a template into a function(values) -> string. 'name' is what errors show.
-- Each render runs under the sandbox's instruction and memory budgets.
function M.compile(text, name)
  local source = M.translate(text, name)
  return function(values)
    local buf = {}
    local globals = template_globals()
    local env = setmetatable({}, { __index = function(_, k)
      local v = values[k]
      if v == nil then v = globals[k] end
      return v
    end })
    env._put = function(...) for i = 1, select("#", ...) do buf[#buf + 1] = select(i, ...) end end
    env._str = function(v)
      if v == nil then error("template value is nil", 2) end
      if type(v) == "table" then error("template value is a table, not text", 2) end
      return tostring(v)
    end
    local chunk, err = load(source, "@" .. name, "t", env)
    if not chunk then error(errors.located(err, name), 0) end
    -- An error raised inside a C function (an iterator over nil, say) has no position:
    -- give it the template line that was running.
    sandbox.run("template", name, function(e)
      if errors.is_user_error(e) then return e end -- the sandbox's budgets: located already
      local message = tostring(e)
      if message:find(name, 1, true) then return message end
      for level = 2, 64 do
        local info = debug.getinfo(level, "Sl")
        if not info then break end
        if info.source == "@" .. name and info.currentline > 0 then
          return string.format("%s:%d: %s", name, info.currentline, message)
        end
      end
      return errors.located(message, name)
    end, chunk)
    return table.concat(buf)
  end
end

-- Each template file is read and translated once a run (translating was half of the
-- generator's time: a template renders once for each kernel).
local compiled = {}
function M.render_file(path, name, values)
  local key = path .. "\0" .. name
  if not compiled[key] then
    local f, err = io.open(path, "rb")
    if not f then error(err, 0) end
    local text = f:read("a")
    f:close()
    compiled[key] = M.compile(text, name)
  end
  return compiled[key](values)
end

return M
