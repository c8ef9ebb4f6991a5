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

-- A function of the device's math library in a composite expression: compared within a
-- bound in ulps of the expression evaluated in double (docs/op-files.md). The stable
-- form: the plain 1 / (1 + e^-a) overflows e^-a below a = -88.7 and gives 0 where the
-- true value is a subnormal float, thousands of ulps away; the oracle would report it.
elementwise {
  name = "logistic",
  arity = 1,
  types = { "f32", "f64" },
  semantics = "1 / (1 + e^-a), as e^a / (1 + e^a) for a < 0",
  compute = { float = "a >= 0 ? (T)1 / ((T)1 + exp(-a)) : exp(a) / ((T)1 + exp(a))" },
  compare = { f32 = { ulps = { nvidia = 4, amd = 5 } }, f64 = { ulps = { nvidia = 3, amd = 5 } } },
}
