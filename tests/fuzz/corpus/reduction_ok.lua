reduction {
  name = "total",
  semantics = "the sum",
  types = { "i64" },
  identity = { integer = "0" },
  combine = { integer = "(T)((U)a + (U)b)" },
}
