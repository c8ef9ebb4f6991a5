elementwise { name = "x", arity = 1, types = { "i32" }, semantics = "s", compute = { any = "a" } }
while true do end
