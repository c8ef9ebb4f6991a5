-- Ops TokitaiHip does not ship, defined by a downstream project. docs/op-files.md
-- describes the format: signatures of named, typed arrays, scalars and outputs, or the
-- short form (arity; operands a, b, c of one type T, output out).

-- A scalar passed by value (CuPy's 'T alpha' given a Python number), then two arrays.
elementwise {
  name = "axpy",
  inputs = "scalar T alpha, T x, T y",
  outputs = "T out",
  types = { "i32", "f32", "f64" },
  semantics = "alpha * x + y in one pass; integers wrap; floats round after the product and "
    .. "after the sum (two roundings, never a fused multiply-add)",
  compute = { integer = "(T)((W)(U)alpha * (W)(U)x + (W)(U)y)", float = "alpha * x + y" },
  reference = { integer = "R(alpha * x + y)", float = "R(R(alpha * x) + y)" },
  degradations = { integer = { "integer overflow wraps instead of trapping" } },
}

-- Two outputs from one pass, sharing a step: the quotient toward zero and the remainder.
elementwise {
  name = "divmod",
  inputs = "T a, T b",
  outputs = "T q, T r",
  types = { "i32" },
  semantics = "q = a / b toward zero, r = a - q * b; b = 0 gives q = 0, r = a; MIN / -1 "
    .. "gives q = MIN, r = 0",
  steps = { { "Q", "b == 0 ? (T)0 : (b == (T)-1 && a == TMIN) ? TMIN : (T)(a / b)" } },
  compute = { q = "Q", r = "(T)((W)a - (W)Q * (W)b)" },
  reference = { q = "b == 0 ? R(0) : R(a / b)", r = "b == 0 ? R(a) : R(a % b)" },
}

-- Mixed types: an array of T, a scale of f64, a result of f64.
elementwise {
  name = "scaled",
  inputs = "T x, scalar f64 scale",
  outputs = "f64 out",
  types = { "i32", "f32" },
  semantics = "x converted to f64 (exactly), times scale, rounded once",
  compute = "(double)x * scale",
  reference = "R(x * scale)",
}

-- Two float outputs, each compared within its own bound in ulps.
elementwise {
  name = "sincos",
  inputs = "T a",
  outputs = "T s, T c",
  types = { "f32", "f64" },
  semantics = "s = sin(a), c = cos(a), radians",
  compute = { s = "sin(a)", c = "cos(a)" },
  compare = { s = { f32 = { ulps = { nvidia = 2.5, amd = 4.5 } }, f64 = { ulps = { nvidia = 2.5, amd = 4.5 } } },
              c = { f32 = { ulps = { nvidia = 2.5, amd = 4.5 } }, f64 = { ulps = { nvidia = 2.5, amd = 4.5 } } } },
}

elementwise {
  name = "bounded",
  arity = 3,
  types = { "i32", "f32", "f64" },
  semantics = "a limited to per-element bounds [lo, hi] = [b, c] (the short form: three arrays; TokitaiHip's clamp takes scalars): a itself when b <= a <= c (so -0 stays -0), "
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

-- The textbook sigmoid, named like TokitaiHip's own (a downstream catalog's symbols carry
-- its prefix and its registry is searched on its own). Below a = -88.7, e^-a overflows
-- f32 and the result is 0 where the true value is a subnormal float (up to 2.9e-39),
-- millions of ulps of the subnormal grid away: the absolute floor, the smallest normal
-- f32, says such results count as close enough (numpy.allclose's atol).
elementwise {
  name = "sigmoid",
  arity = 1,
  types = { "f32" },
  semantics = "1 / (1 + e^-a), as written; results within 2^-126 of the reference pass",
  compute = { float = "(T)1 / ((T)1 + exp(-a))" },
  compare = { ulps = 4, atol = 0x1p-126 },
}

-- A reduction in four parts: map each element to an i64, add them, then divide by n in
-- f64 (the mean absolute value); exact, so the oracle compares the bits.
reduction {
  name = "mean_abs",
  types = { "i32" },
  semantics = "the mean of |x|: |x| summed in i64, then divided by n in f64",
  accumulator = "i64",
  output = "f64",
  map = "x < 0 ? -(ACC)x : (ACC)x",
  identity = "(ACC)0",
  combine = "(ACC)((uint64_t)a + (uint64_t)b)",
  post = "(OUT)a / (OUT)n",
}

-- Normalizations of the project's own (docs/op-files.md), each along an axis of a tensor.
-- A softmax over the positions a column marks (one mask for every row, as an attention
-- mask over keys); the others give 0. The conditions read only the column, so the
-- oracle's bound follows the branch the device takes.
normalization {
  name = "masked_softmax",
  inputs = "T x, column T keep",
  types = { "f16", "f32", "f64" },
  semantics = "exp(x - m) / sum of exp(x - m) over the positions where keep is nonzero, m the "
    .. "largest kept element; 0 where keep is 0 (a row with none kept is all 0)",
  reductions = {
    { "m", identity = "-(ACC)INFINITY", map = "keep != 0 ? x : -(ACC)INFINITY", combine = "fmax(a, b)" },
    { "r", identity = "(ACC)0", map = "keep != 0 ? exp(x - m) : (ACC)0", combine = "a + b",
      post = "(ACC)1 / a" },
  },
  map = "keep != 0 ? exp(x - m) * r : (ACC)0",
}

-- RMSNorm whose learned scale is stored as its offset from 1 (Gemma's), with epsilon.
normalization {
  name = "rms_norm_offset",
  inputs = "T x, column T offset = 0, scalar ACC eps",
  types = { "f16", "f32" },
  semantics = "x / sqrt(mean of x^2 + eps) * (1 + offset); offset 0 when not given",
  reductions = { { "rstd", identity = "(ACC)0", map = "x * x", combine = "a + b", post = "rsqrt(a / n + eps)" } },
  map = "x * rstd * ((ACC)1 + offset)",
}

-- A matrix product of the project's own (docs/matmul.md): BLAS's GEMM, c an addend of any
-- shape that broadcasts to the output (0 when not given), alpha and beta in the accumulator.
matmul {
  name = "gemm",
  inputs = "T a, T b, T c = 0, scalar ACC alpha, scalar ACC beta",
  types = { "f16", "f32" },
  epilogue = "alpha * acc + beta * c",
  semantics = "alpha (a @ b) + beta c, batched and broadcast as numpy.matmul",
}
