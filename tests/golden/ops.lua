-- A small catalog whose generated files are kept as reviewed goldens: the four kernel
-- shapes, integer and float types, a unary and a binary op, both comparison rules, and a
-- signature with a bool array, a scalar and two outputs.
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

-- Under the ulp rule, with a step, a bound per platform and an absolute floor for f32,
-- and one bound for bf16.
elementwise {
  name = "softsign",
  arity = 1,
  types = { "bf16", "f32" },
  semantics = "a / (1 + |a|), through e^log to call a function",
  steps = { { "D", "(T)1 + fabs(a)" } },
  compute = { float = "a / exp(log(D))" },
  compare = { bf16 = { ulps = 0.55 }, f32 = { ulps = { nvidia = 4, amd = 6 }, atol = 1e-30 } },
}

elementwise {
  name = "scale_where",
  inputs = "bool keep, T x, scalar T s",
  outputs = "T out, bool negative",
  types = { "f16" },
  semantics = "out = x * s where keep, else x; negative = x < 0",
  compute = { out = "keep ? x * s : x", negative = "x < 0" },
}

-- A normalization: a stage with a post step, an optional column, a scalar, a map.
normalization {
  name = "rms_norm",
  inputs = "T x, column T weight = 1, scalar ACC eps",
  types = { "f16" },
  semantics = "x / sqrt(mean of x^2 + eps) * weight",
  reductions = { { "rstd", identity = "(ACC)0", map = "x * x", combine = "a + b", post = "rsqrt(a / n + eps)" } },
  map = "x * rstd * weight",
}

-- A normalization whose map reuses its last stage's values (exp once an element).
normalization {
  name = "softmax",
  types = { "f16" },
  semantics = "exp(x - m) / sum of exp(x - m)",
  reductions = {
    { "m", identity = "-(ACC)INFINITY", combine = "fmax(a, b)" },
    { "r", identity = "(ACC)0", map = "exp(x - m)", combine = "a + b", post = "(ACC)1 / a" },
  },
  map = "exp(x - m) * r",
}

-- Matrix products: a linear layer with a column (bias), an epilogue and b given as [n, k];
-- one with a row (a scale per row) and an addend (a residual), both optional; an integer
-- product accumulated in i32.
matmul {
  name = "linear_relu",
  inputs = "T x, T weight, column T bias = 0",
  types = { "bf16" },
  b_layout = "nk",
  epilogue = "tkh_relu(acc + bias)",
  semantics = "relu(x @ weight^T + bias)",
}

matmul {
  name = "scaled_residual",
  inputs = "T x, T weight, row T scale = 1, T residual = 0",
  types = { "f32" },
  b_layout = "nk",
  epilogue = "scale * acc + residual",
  semantics = "scale[i] * (x @ weight^T)[i, j] + residual[i, j], the residual broadcast to the output",
}

matmul {
  name = "matmul",
  types = { "i8" },
  semantics = "a @ b, i32 modulo 2^32",
}
