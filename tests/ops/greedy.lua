-- Test fixture: an op file that grows the heap without end. The sandbox stops it past its
-- memory budget, naming the line; nothing is written.
elementwise { name = "x", arity = 1, types = { "i32" }, semantics = "a", compute = { any = "a" } }
local t = {}
for i = 1, math.maxinteger do
  t[i] = { i }
end
