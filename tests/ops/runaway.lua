-- Test fixture: an op file stuck in a loop. The sandbox stops it after its instruction
-- budget, naming the line; nothing is written.
elementwise { name = "x", arity = 1, types = { "i32" }, semantics = "a", compute = { any = "a" } }
local n = 0
repeat
  n = n + 1
until n < 0
