-- Test fixture: no 'semantics'.
elementwise {
  name = "add",
  arity = 2,
  types = { "i32" },
  compute = { integer = "(T)((U)a + (U)b)" },
}
