-- User errors (a bad op file, a bad option) are raised as tables so the entry point can
-- print them plainly; anything else is a bug and gets a traceback.
local M = {}
local UserError = {}
UserError.__tostring = function(e) return e.message end

function M.raise(fmt, ...)
  error(setmetatable({ message = string.format(fmt, ...) }, UserError), 0)
end

function M.is_user_error(e)
  return getmetatable(e) == UserError
end

-- A Lua error from inside an op file (say, calling nil) is the op file's fault too.
function M.rethrow(e)
  if M.is_user_error(e) then error(e, 0) end
  M.raise("%s", tostring(e))
end

-- Lua's loader says where a syntax error is, but not that a chunk is binary: every
-- message names the file and a line.
function M.located(message, name)
  if message:find(name, 1, true) then return message end
  return name .. ":1: " .. message
end

return M
