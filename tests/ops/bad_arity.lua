-- Test fixture: an arity no kernel shape has.
elementwise {
  name = "add",
  arity = 4,
  types = { "i32" },
  semantics = "lhs + rhs",
  compute = { integer = "(T)((U)a + (U)b)" },
}
