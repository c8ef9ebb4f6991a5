-- The core op catalog. Each declaration becomes, per listed type, a HIP kernel, an
-- oracle-checked C entry point and a registry entry. 'compute' is one C expression
-- over the operands a (and b) in the scalar type T, whose unsigned twin is U; the same
-- expression is compiled for the device kernel and for the CPU oracle. Keys pick the
-- expression per type: a type name, then signed | unsigned, then integer, then any.
-- docs/op-files.md describes every field.

elementwise {
  name = "add",
  arity = 2,
  types = { "i32", "u32" },
  semantics = "lhs + rhs; integers wrap modulo 2^bits (two's complement)",
  -- Adding in U is defined for every input in both C and HIP; converting back to a
  -- signed T is modular on every compiler we build with (GCC, Clang, NVCC).
  compute = { integer = "(T)((U)a + (U)b)" },
  degradations = { "integer overflow wraps instead of trapping" },
}

elementwise {
  name = "sub",
  arity = 2,
  types = { "i32" },
  semantics = "lhs - rhs; integers wrap modulo 2^bits (two's complement)",
  compute = { integer = "(T)((U)a - (U)b)" },
  degradations = { "integer overflow wraps instead of trapping" },
}
