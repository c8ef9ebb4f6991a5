-- Test fixture: an op name that is not a C identifier.
elementwise {
  name = "Add-1",
  arity = 2,
  types = { "i32" },
  semantics = "lhs + rhs",
  compute = { integer = "(T)((U)a + (U)b)" },
}
