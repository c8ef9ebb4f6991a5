-- Ops TokitaiHip does not ship, defined by a downstream project. docs/op-files.md
-- describes the format; a, b, c are the operands.

elementwise {
  name = "axpy",
  arity = 3,
  types = { "i32", "f32", "f64" },
  semantics = "a * x + y in one pass; integers wrap; floats round after the product and "
    .. "after the sum (two roundings, never a fused multiply-add)",
  compute = { integer = "(T)((W)(U)a * (W)(U)b + (W)(U)c)", float = "a * b + c" },
  reference = { integer = "R(A * B + C)", float = "R(R(A * B) + C)" },
  degradations = { integer = { "integer overflow wraps instead of trapping" } },
}

elementwise {
  name = "clamp",
  arity = 3,
  types = { "i32", "f32", "f64" },
  semantics = "a limited to [lo, hi] = [b, c]: a itself when b <= a <= c (so -0 stays -0), "
    .. "else the bound it passes; a NaN anywhere gives NaN",
  compute = {
    integer = "a < b ? b : a > c ? c : a",
    float = "(a != a || b != b || c != c) ? a + b + c : a < b ? b : a > c ? c : a",
  },
  reference = {
    integer = "R(A < B ? B : A > C ? C : A)",
    float = "(ISNAN(A) || ISNAN(B) || ISNAN(C)) ? R(QNAN) : A < B ? R(B) : A > C ? R(C) : R(A)",
  },
}
