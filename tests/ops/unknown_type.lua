-- Test fixture: a type that does not exist.
elementwise {
  name = "add",
  arity = 2,
  types = { "i32", "i33" },
  semantics = "lhs + rhs",
  compute = { integer = "(T)((U)a + (U)b)" },
}
