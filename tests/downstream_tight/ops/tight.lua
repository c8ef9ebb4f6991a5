-- Test fixture: exp held to a bound no device meets (a correctly rounded result is up to
-- 0.5 ulps from the exact value), so every run past the first few inputs must fail.
elementwise {
  name = "exp_tight",
  arity = 1,
  types = { "f32" },
  semantics = "e^a, held to a quarter ulp on purpose",
  compute = { float = "exp(a)" },
  compare = { ulps = 0.25 },
}

-- Test fixture: the ulp rule's absolute floor at its edges. 3a is exact in f32 for the
-- inputs used and in the double reference, so the check's distances are known exactly.
elementwise {
  name = "triple_floor",
  arity = 1,
  types = { "f32" },
  semantics = "3 a, with an absolute floor of 2^-144 beside a bound of half an ulp",
  compute = { float = "(T)3 * a" },
  compare = { ulps = 0.5, atol = 0x1p-144 },
}
