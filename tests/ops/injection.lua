-- Test fixture: a valid op, then one whose expression would inject a statement. Nothing
-- may be written, not even for the valid op.
elementwise {
  name = "add",
  arity = 2,
  types = { "i32" },
  semantics = "lhs + rhs",
  compute = { integer = "(T)((U)a + (U)b)" },
}

elementwise {
  name = "evil",
  arity = 2,
  types = { "i32" },
  semantics = "lhs + rhs, and a side effect",
  compute = { integer = "a; } int x = system(\"true\"); { (void)b" },
}
