-- A small catalog whose generated files are kept as reviewed goldens: both kernel
-- shapes, integer and float types, a unary and a binary op.
elementwise {
  name = "add",
  arity = 2,
  types = { "i32", "f16" },
  semantics = "a + b; integers wrap modulo 2^bits; floats IEEE, rounded to nearest even",
  compute = { integer = "(T)((W)a + (W)b)", float = "a + b" },
  reference = { integer = "R(A + B)", float = "R(A + B)" },
  degradations = { integer = { "integer overflow wraps instead of trapping" } },
}

elementwise {
  name = "neg",
  arity = 1,
  types = { "i8" },
  semantics = "-a; integers wrap",
  compute = { integer = "(T)((W)0 - (W)(U)a)" },
  reference = { integer = "R(-A)" },
}

reduction {
  name = "sum",
  types = { "f32" },
  semantics = "sum of all elements",
  identity = { float = "(T)0" },
  combine = { float = "a + b" },
  compare = { float = "sum_bound" },
}
