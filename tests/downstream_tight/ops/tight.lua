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
