-- Budgets for every Lua chunk the generator runs on a user's behalf: op files, templates
-- (ours or a downstream --templates folder) and the build-info table. A chunk that runs
-- too long or grows the heap too much stops with an error that names its file and the
-- line it was running, so no input hangs the generator, or configure with it:
--   templates/x.tpl:3: the template ran for more than 100000000 instructions
-- A single allocation larger than the machine can give fails in Lua's allocator
-- ("not enough memory"), which is reported the same way; CMake also runs the generator
-- with a cap on its address space and a timeout (cmake/TokitaiHipGenerate.cmake).
local errors = require "tkh.errors"

local M = {}

M.INSTRUCTIONS = 100000000 -- Lua VM instructions per chunk: about a second
M.MEMORY_MIB = 256         -- growth of the Lua heap per chunk
local PERIOD = 1000        -- instructions between two checks

local real_rep = string.rep
local active = nil -- the chunk being run: { name, what, used, base_kib, line }

-- The line of 'name' that is running, searched from the innermost frame out (the chunk
-- may be inside a generator function it called, or a function of its own).
local function current_line(name)
  for level = 3, 64 do
    local info = debug.getinfo(level, "Sl")
    if not info then break end
    if info.source == "@" .. name and info.currentline > 0 then return info.currentline end
  end
  return active and active.line or 1
end

local function stop(fmt, ...)
  errors.raise("%s:%d: the %s " .. fmt, active.name, current_line(active.name), active.what, ...)
end

local function heap_kib_used()
  return collectgarbage("count") - active.base_kib
end

local function hook()
  active.used = active.used + PERIOD
  active.line = current_line(active.name)
  if active.used > M.INSTRUCTIONS then
    stop("ran for more than %d instructions", M.INSTRUCTIONS)
  end
  if heap_kib_used() > M.MEMORY_MIB * 1024 then
    collectgarbage("collect") -- garbage is not growth: count only what is still reachable
    if heap_kib_used() > M.MEMORY_MIB * 1024 then
      stop("used more than %d MiB of memory", M.MEMORY_MIB)
    end
  end
end

-- string.rep makes its whole result in one C call, between two checks of the hook.
local function guarded_rep(s, n, sep)
  if not active then return real_rep(s, n, sep) end
  local piece = #tostring(s) + (sep and #tostring(sep) or 0)
  if type(n) == "number" and n > 0 and piece * n > M.MEMORY_MIB * 1048576 - heap_kib_used() * 1024 then
    stop("asked string.rep for %.0f bytes, more than its %d MiB of memory", piece * n, M.MEMORY_MIB)
  end
  return real_rep(s, n, sep)
end

-- Runs fn(...) as the chunk 'name' (what: "op file", "template", ...) under the budgets,
-- with 'handler' (or none: nil) as the message handler of its errors, as in xpcall.
-- Returns fn's results; raises its error as the handler left it, or the budget's.
function M.run(what, name, handler, fn, ...)
  if active then error("tkh.sandbox: chunks do not nest (" .. active.name .. ", " .. name .. ")") end
  active = { name = name, what = what, used = 0, base_kib = collectgarbage("count"), line = 1 }
  string.rep = guarded_rep -- also what ("x"):rep(n) finds, through the strings' metatable
  debug.sethook(hook, "", PERIOD)
  local results = table.pack(xpcall(fn, handler or function(e) return e end, ...))
  debug.sethook()
  string.rep = real_rep
  local line = active.line
  active = nil
  if not results[1] then
    local e = results[2]
    if e == "not enough memory" then
      errors.raise("%s:%d: the %s ran out of memory (the line is the last one seen running)",
        name, line, what)
    end
    error(e, 0)
  end
  return table.unpack(results, 2, results.n)
end

-- A copy of one of Lua's libraries (string, table, math, utf8) for a chunk's globals: a
-- chunk cannot change the generator's own, its string.rep is the guarded one, and it has
-- no math.random (seeded from the clock: generated files must be the same on every run).
function M.library(name)
  local copy = {}
  for k, v in pairs(_G[name]) do copy[k] = v end
  if name == "string" then copy.rep = guarded_rep end
  if name == "math" then copy.random, copy.randomseed = nil, nil end -- output must not vary
  return copy
end

return M
