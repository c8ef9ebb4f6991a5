-- Matrix products a downstream project may declare (docs/matmul.md, "Declaring one") beyond
-- the core catalog's: each field away from its default.

matmul {
  name = "scaled_linear", types = { "f16", "bf16", "f32", "f64" },
  inputs = "T x, T w, row T scale = 1, column T bias = 0",
  b_layout = "nk",
  epilogue = "acc * scale + bias",
  semantics = "scale[m] * (x @ w^T) + bias[n]",
}
matmul {
  name = "linear_silu_residual", types = { "bf16", "f32" },
  inputs = "T x, T w, column T bias, T residual = 0",
  b_layout = "nk",
  epilogue = "residual + (acc + bias) / (1 + exp(-(acc + bias)))",
  semantics = "residual + silu(x @ w^T + bias)",
}
matmul {
  name = "mm_tanh", types = { "f64", "f32" },
  epilogue = "tanh(acc)",
  semantics = "tanh(a @ b)",
}
matmul {
  name = "imm", types = { "i8" },
  semantics = "a @ b in i32, wrapping",
}
matmul {
  name = "mm_wide", types = { "f16" },
  output = "f32",
  semantics = "a @ b, f16 inputs, f32 output",
}
matmul {
  name = "mm_f64acc", types = { "f32" },
  accumulator = "f64",
  inputs = "T a, T b, scalar ACC alpha",
  epilogue = "alpha * acc",
  semantics = "alpha (a @ b) with a double accumulator",
}

matmul {
  name = "mixed_bias", types = { "f16", "bf16" },
  inputs = "T x, T w, column f32 bias = 0, scalar f32 alpha",
  b_layout = "nk",
  accumulator = { f16 = "f32", bf16 = "f64" },
  epilogue = "alpha * acc + bias",
  semantics = "alpha (x @ w^T) + bias, bias in f32",
}
matmul {
  name = "relu_rows", types = { "f32", "f64" },
  inputs = "T a, T b, row T shift = 0",
  epilogue = "tkh_relu(acc - shift)",
  semantics = "relu(a @ b - shift[m])",
}
matmul {
  name = "u8mm", types = { "u8", "i16" },
  semantics = "a @ b modulo 2^32",
}
