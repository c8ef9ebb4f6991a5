elementwise {
  name = "twice",
  arity = 1,
  semantics = "2 * a",
  types = { "i32", "f32" },
  compute = { integer = "(T)((U)a * 2u)", float = "a * 2" },
}
