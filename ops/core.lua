-- The core op catalog. Each declaration becomes, per listed type, a HIP kernel, an
-- oracle-checked C entry point, a registry entry and CPU tests. docs/op-files.md
-- describes the fields; docs/semantics.md the meaning of every op here.
--
-- In expressions: a, b are the operands (a reduction combines an accumulator a with an
-- element b), T is the type computed in (float for f16/bf16), U the unsigned type of the
-- same width, W an unsigned type at least as wide as int, TMIN/TMAX/BITS the integer
-- limits. 'compute' (or 'combine') is compiled for the device and for the CPU oracle
-- alike. 'reference' states the same semantics a second, independent way, evaluated only
-- by the CPU tests (tests/support/reference.h) in wide arithmetic: A, B are the operands
-- as __int128 (integers; UA, UB read as unsigned) or in a wider float type (double for
-- f16, bf16, f32; __float128 for f64), R(x) brings a wide result back to the type
-- (wrapping integers, rounding floats), and SQRT, FMOD, FABS, FMIN, FMAX, ISNAN, SIGNBIT,
-- QNAN and FLOORDIV work on the wide types.

local WRAP = { degradations = { integer = { "integer overflow wraps instead of trapping" } } }

-- IEEE 754-2019 minimum and maximum, for min / max and amin / amax's references: NaN if either
-- operand is NaN, and -0 < +0. Written without signbit so that the CPU checks vectorize
-- (3x faster folds): when neither operand is larger, equal non-zero operands are the same
-- value; a tie of zeros and any NaN go through arithmetic that gives the answer (max:
-- a + b is -0 only for -0 + -0; min: -(-a - b) is -0 unless both are +0; NaN stays NaN).
local MIN_FLOAT = "a < b ? a : b < a ? b : (a == b && a != 0) ? a : -(-a - b)"
local MAX_FLOAT = "a > b ? a : b > a ? b : (a == b && a != 0) ? a : a + b"
local MIN_FLOAT_REF = "(ISNAN(A) || ISNAN(B)) ? R(QNAN) : (A == B) ? R(SIGNBIT(A) ? A : B) : R(FMIN(A, B))"
local MAX_FLOAT_REF = "(ISNAN(A) || ISNAN(B)) ? R(QNAN) : (A == B) ? R(SIGNBIT(A) ? B : A) : R(FMAX(A, B))"
-- amin and amax fold floats as integers in the same order (op_math.h's keys: one integer
-- compare an element, NaN mapped past every number); checked against the float rule above.
-- They have no identity (numpy.amax and torch.amax refuse an empty reduction, as for
-- integers no value of the type is one): their folds 'start' at the far end of the order.
local ORDER_KEY = { f64 = "i64", float = "i32" }
local ORDER_VALUE = { f64 = "tkh_key_value_f64(a)", float = "tkh_key_value_f32(a)" }

local function binary(name, semantics, compute, reference, extra)
  local def = { name = name, arity = 2, semantics = semantics, compute = compute,
                reference = reference, types = extra and extra.types or { "any" } }
  if extra then
    for k, v in pairs(extra) do if k ~= "types" then def[k] = v end end
  end
  elementwise(def)
end

binary("add", "a + b; integers wrap modulo 2^bits; floats IEEE, rounded to nearest even",
  { integer = "(T)((W)a + (W)b)", float = "a + b" },
  { integer = "R(A + B)", float = "R(A + B)" }, WRAP)
binary("sub", "a - b; integers wrap modulo 2^bits; floats IEEE, rounded to nearest even",
  { integer = "(T)((W)a - (W)b)", float = "a - b" },
  { integer = "R(A - B)", float = "R(A - B)" }, WRAP)
binary("mul", "a * b; integers wrap modulo 2^bits; floats IEEE, rounded to nearest even",
  { integer = "(T)((W)(U)a * (W)(U)b)", float = "a * b" },
  { integer = "R(A * B)", float = "R(A * B)" }, WRAP)
binary("div",
  "a / b; integers truncate toward zero, a / 0 has every bit set (-1 signed, max unsigned), "
    .. "MIN / -1 = MIN; floats IEEE",
  { integer = "b == 0 ? (T)~(U)0 : (b == (T)-1 && a == TMIN) ? TMIN : (T)(a / b)", float = "a / b" },
  { integer = "B == 0 ? R(-1) : R(A / B)", float = "R(A / B)" },
  { degradations = { integer = { "integer division by zero gives all bits set instead of trapping" } } })
binary("rem",
  "remainder with the sign of a (C %, fmod); integers: a % 0 = a, MIN % -1 = 0",
  { signed = "b == 0 ? a : (b == (T)-1) ? (T)0 : (T)(a % b)", unsigned = "b == 0 ? a : (T)(a % b)",
    float = "fmod(a, b)" },
  { integer = "B == 0 ? R(A) : R(A % B)", float = "R(FMOD(A, B))" },
  { degradations = { integer = { "integer remainder by zero gives the dividend instead of trapping" } } })
binary("min",
  "the smaller of a and b; floats: IEEE 754-2019 minimum: NaN if either is NaN, -0 < +0",
  { integer = "a < b ? a : b",
    float = MIN_FLOAT },
  { integer = "R(A < B ? A : B)",
    float = MIN_FLOAT_REF })
binary("max",
  "the larger of a and b; floats: IEEE 754-2019 maximum: NaN if either is NaN, -0 < +0",
  { integer = "a > b ? a : b",
    float = MAX_FLOAT },
  { integer = "R(A > B ? A : B)",
    float = MAX_FLOAT_REF })
binary("bit_and", "bitwise a & b", { integer = "(T)((U)a & (U)b)" }, { integer = "R(A & B)" },
  { types = { "integer" } })
binary("bit_or", "bitwise a | b", { integer = "(T)((U)a | (U)b)" }, { integer = "R(A | B)" },
  { types = { "integer" } })
binary("bit_xor", "bitwise a ^ b", { integer = "(T)((U)a ^ (U)b)" }, { integer = "R(A ^ B)" },
  { types = { "integer" } })
binary("shl",
  "a << b; the amount b is read as unsigned, so a negative b is a large amount; "
    .. "an amount >= bits gives 0",
  { integer = "(W)(U)b >= BITS ? (T)0 : (T)((W)(U)a << (W)(U)b)" },
  { integer = "UB >= BITS ? R(0) : R((unsigned __int128)UA << UB)" },
  { types = { "integer" }, degradations = { "shift amounts >= bits give 0 instead of being undefined" } })
binary("shr",
  "a >> b, arithmetic (sign-filling) for signed types; the amount b is read as unsigned; "
    .. "an amount >= bits gives 0, or -1 for a negative signed a",
  { signed = "(W)(U)b >= BITS ? (a < 0 ? (T)-1 : (T)0) : a < 0 ? (T)~(T)(~a >> (W)(U)b) : (T)(a >> (W)(U)b)",
    unsigned = "(W)(U)b >= BITS ? (T)0 : (T)(a >> (W)(U)b)" },
  { signed = "UB >= BITS ? R(A < 0 ? -1 : 0) : R(FLOORDIV(A, (__int128)1 << UB))",
    unsigned = "UB >= BITS ? R(0) : R(A / ((__int128)1 << UB))" },
  { types = { "integer" }, degradations = { "shift amounts >= bits saturate instead of being undefined" } })

local function unary(name, semantics, compute, reference, types, degradations)
  elementwise { name = name, arity = 1, semantics = semantics, compute = compute,
                reference = reference, types = types, degradations = degradations }
end

unary("neg", "-a; integers wrap (-MIN = MIN, unsigned: 2^bits - a); floats flip the sign bit",
  { integer = "(T)((W)0 - (W)(U)a)", float = "-a" }, { integer = "R(-A)", float = "R(-A)" },
  { "any" }, WRAP.degradations)
unary("abs", "|a|; abs(MIN) = MIN for signed integers; floats clear the sign bit",
  { signed = "a < 0 ? (T)((W)0 - (W)(U)a) : a", float = "fabs(a)" },
  { signed = "R(A < 0 ? -A : A)", float = "R(FABS(A))" }, { "signed", "float" },
  WRAP.degradations)
unary("bit_not", "bitwise ~a", { integer = "(T)~(U)a" }, { integer = "R(-A - 1)" }, { "integer" })
unary("sqrt", "square root, IEEE correctly rounded; sqrt(-x) is NaN, sqrt(-0) = -0",
  { float = "sqrt(a)" }, { float = "R(SQRT(A))" }, { "float" })

-- Reductions: a deterministic two-level tree (per-thread fold, block tree, a final block).
-- A reduction's reference combines an accumulator A with an element B; its R() rounds to
-- the type computed in (f32 for f16 and bf16), as the accumulator does.
-- Reductions in four parts (docs/op-files.md): map each element to the accumulator type
-- ACC, combine accumulators from the identity, then a post step of the final one and n.
-- Integers accumulate in 64 bits, as numpy's and torch's sums do; 16-bit floats in f32.
local WIDE_ACC = { signed = "i64", unsigned = "u64" }
local WRAP64 = "(ACC)((uint64_t)a + (uint64_t)b)"
reduction {
  name = "sum",
  types = { "any" },
  semantics = "sum of all elements; integers accumulate in 64 bits (i64 for signed, u64 for "
    .. "unsigned, the output's type too) and wrap modulo 2^64; floats accumulate in the "
    .. "compute type (f32 for f16 and bf16) and round once to the storage type",
  accumulator = WIDE_ACC, output = WIDE_ACC,
  identity = "(ACC)0",
  combine = { integer = WRAP64, float = "a + b" },
  reference = { integer = "R(A + B)", float = "R(A + B)" },
  compare = { float = "sum_bound" },
  degradations = { integer = { "integer overflow wraps (modulo 2^64) instead of trapping" },
                   float = { "float sums depend on the summation order; compared within a stated bound" } },
}
reduction {
  name = "mean",
  types = { "any" },
  semantics = "sum / n; integers: the sum in 64 bits (wrapping) divided by n in f64, an f64 "
    .. "result (numpy.mean); floats: the sum in the compute type divided by n, rounded to "
    .. "the storage type",
  accumulator = WIDE_ACC, output = { integer = "f64" },
  identity = "(ACC)0",
  combine = { integer = WRAP64, float = "a + b" },
  post = { integer = "(OUT)a / (OUT)n", float = "a / n" },
  reference = { integer = "R(A + B)" },
  compare = { float = "sum_bound" },
  degradations = { integer = { "a sum beyond 64 bits wraps before the division" },
                   float = { "float sums depend on the summation order; compared within a stated bound" } },
}
reduction {
  name = "sumsq",
  types = { "any" },
  semantics = "sum of squares; integers in 64 bits, wrapping (i64 or u64 out); floats: each "
    .. "square and the sum in the compute type",
  accumulator = WIDE_ACC, output = WIDE_ACC,
  identity = "(ACC)0",
  map = { integer = "(ACC)((uint64_t)x * (uint64_t)x)", float = "x * x" },
  combine = { integer = WRAP64, float = "a + b" },
  reference = { integer = "R((unsigned __int128)A + (unsigned __int128)B * (unsigned __int128)B)" },
  compare = { float = "sum_bound" },
  degradations = { integer = { "integer overflow wraps (modulo 2^64) instead of trapping" },
                   float = { "float sums depend on the summation order; compared within a stated bound" } },
}
reduction {
  name = "norm2",
  types = { "float" },
  semantics = "the Euclidean norm sqrt(sum of squares), squares and sum in the compute type",
  identity = "(ACC)0",
  map = "x * x",
  combine = "a + b",
  post = "sqrt(a)",
  compare = "sum_bound",
  degradations = { "float sums depend on the summation order; compared within a stated bound",
                   "no scaling: squares overflow for elements beyond the square root of the largest value" },
}
reduction {
  name = "count_nonzero",
  types = { "any", "bool" },
  semantics = "how many elements are not zero (NaN counts; -0 does not), as an i64",
  accumulator = "i64", output = "i64",
  identity = "(ACC)0",
  map = "(ACC)(x != 0)",
  combine = WRAP64,
  reference = "R(A + (B != 0))",
}
reduction {
  name = "any",
  types = { "any", "bool" },
  semantics = "whether any element is not zero (NaN is), as a bool",
  accumulator = "bool", output = "bool",
  identity = "false",
  map = "x != 0",
  combine = "a || b",
  reference = "R(A || B != 0)",
}
reduction {
  name = "all",
  types = { "any", "bool" },
  semantics = "whether every element is not zero (NaN is), as a bool",
  accumulator = "bool", output = "bool",
  identity = "true",
  map = "x != 0",
  combine = "a && b",
  reference = "R(A && B != 0)",
}
reduction {
  name = "amin",
  types = { "any" },
  semantics = "smallest element; floats: NaN if any element is NaN, -0 < +0; no identity (zero elements refused)",
  accumulator = ORDER_KEY,
  start = { integer = "TMAX", f64 = "tkh_order_key_f64(INFINITY)", float = "tkh_order_key_f32(INFINITY)" },
  map = { f64 = "tkh_min_key_f64(x)", float = "tkh_min_key_f32(x)" },
  combine = "a < b ? a : b",
  post = ORDER_VALUE,
  reference = { integer = "R(A < B ? A : B)", float = MIN_FLOAT_REF },
}
reduction {
  name = "amax",
  types = { "any" },
  semantics = "largest element; floats: NaN if any element is NaN, -0 < +0; no identity (zero elements refused)",
  accumulator = ORDER_KEY,
  start = { integer = "TMIN", f64 = "tkh_order_key_f64(-INFINITY)", float = "tkh_order_key_f32(-INFINITY)" },
  map = { f64 = "tkh_max_key_f64(x)", float = "tkh_max_key_f32(x)" },
  combine = "a > b ? a : b",
  post = ORDER_VALUE,
  reference = { integer = "R(A > B ? A : B)", float = MAX_FLOAT_REF },
}

-- Math functions. The device calls its vendor's library (CUDA's libdevice, AMD's OCML);
-- the oracle evaluates the same expression in double (long double for f64) and accepts a
-- result within the op's bound in ulps of that unrounded value (the ulp rule,
-- docs/semantics.md). Bounds per platform: the vendor's documented maximum error plus
-- 0.5, from function_ulps (the generator's gen/tkh/functions.lua, which cites them); f16
-- and bf16 are computed in f32 and rounded once, so they are within half an ulp plus the
-- f32 error scaled down (2^-13 or 2^-16 of it): 0.55. docs/accuracy.md has the measured
-- errors against these bounds.
local ROUNDED = 0.55

local function bounds(nv32, nv64, amd32, amd64, b16)
  return { f16 = { ulps = b16 or ROUNDED }, bf16 = { ulps = b16 or ROUNDED },
           f32 = { ulps = { nvidia = nv32, amd = amd32 } },
           f64 = { ulps = { nvidia = nv64, amd = amd64 } } }
end
local function library_bounds(name)
  local u = function_ulps(name)
  return bounds(u.nvidia.f32, u.nvidia.f64, u.amd.f32, u.amd.f64)
end

-- name, semantics, expression (of a, or a and b).
local FUNCTIONS = {
  { "exp", "e^a", "exp(a)" },
  { "exp2", "2^a", "exp2(a)" },
  { "expm1", "e^a - 1, accurate near 0", "expm1(a)" },
  { "log", "natural logarithm; log(0) = -inf, log(x < 0) is NaN", "log(a)" },
  { "log2", "base-2 logarithm", "log2(a)" },
  { "log10", "base-10 logarithm", "log10(a)" },
  { "log1p", "log(1 + a), accurate near 0", "log1p(a)" },
  { "sin", "sine (radians, any magnitude)", "sin(a)" },
  { "cos", "cosine (radians, any magnitude)", "cos(a)" },
  { "tan", "tangent (radians, any magnitude)", "tan(a)" },
  { "asin", "arcsine, in [-pi/2, pi/2]; NaN outside [-1, 1]", "asin(a)" },
  { "acos", "arccosine, in [0, pi]; NaN outside [-1, 1]", "acos(a)" },
  { "atan", "arctangent, in [-pi/2, pi/2]", "atan(a)" },
  { "sinh", "hyperbolic sine", "sinh(a)" },
  { "cosh", "hyperbolic cosine", "cosh(a)" },
  { "tanh", "hyperbolic tangent", "tanh(a)" },
  { "asinh", "inverse hyperbolic sine", "asinh(a)" },
  { "acosh", "inverse hyperbolic cosine; NaN below 1", "acosh(a)" },
  { "atanh", "inverse hyperbolic tangent; +-inf at +-1, NaN outside [-1, 1]", "atanh(a)" },
  { "erf", "error function", "erf(a)" },
  { "erfc", "complementary error function 1 - erf(a), accurate where erf is near 1", "erfc(a)" },
  { "cbrt", "cube root (of negative values too)", "cbrt(a)" },
  { "rsqrt", "1 / sqrt(a); rsqrt(+-0) = +-inf, NaN below 0", "rsqrt(a)" },
  { "atan2", "arctangent of a / b in (-pi, pi], by the signs of both (C atan2)", "atan2(a, b)" },
  { "pow", "a^b, with C's special cases (pow(x, 0) = 1, pow(1, y) = 1, NaN for a < 0 and b not an integer)", "pow(a, b)" },
  { "hypot", "sqrt(a^2 + b^2) without overflow or underflow on the way", "hypot(a, b)" },
}
for _, f in ipairs(FUNCTIONS) do
  elementwise { name = f[1], arity = f[3]:find(", b)", 1, true) and 2 or 1, types = { "float" },
                semantics = f[2], compute = { float = f[3] }, compare = library_bounds(f[1]) }
end

-- Exact on both sides (IEEE 754 defines them; both libraries follow it), so compared bit
-- for bit. f16 and bf16 are computed in f32 and rounded, like every other float op.
local function exact_float(name, arity, semantics, expr)
  elementwise { name = name, arity = arity, types = { "float" }, semantics = semantics,
                compute = { float = expr } }
end
exact_float("floor", 1, "largest integer <= a", "floor(a)")
exact_float("ceil", 1, "smallest integer >= a (ceil(-0.5) = -0)", "ceil(a)")
exact_float("trunc", 1, "a rounded toward zero", "trunc(a)")
exact_float("rint", 1, "a rounded to the nearest integer, ties to even (numpy.rint, torch.round)", "rint(a)")
exact_float("round", 1, "a rounded to the nearest integer, ties away from zero (C round)", "round(a)")
-- A NaN's sign is no part of the contract (conversions may drop it): copysign(a, NaN) = |a|.
exact_float("copysign", 2, "the magnitude of a with the sign of b; |a| when b is NaN", "isnan(b) ? fabs(a) : copysign(a, b)")
-- C leaves the sign of fmin(-0, +0) open, so these are written out: -0 < +0 as in min/max.
exact_float("fmin", 2, "the smaller of a and b, ignoring one NaN (IEEE 754-2008 minNum, numpy.fmin); -0 < +0",
  "isnan(a) ? b : isnan(b) ? a : (" .. MIN_FLOAT .. ")")
exact_float("fmax", 2, "the larger of a and b, ignoring one NaN (IEEE 754-2008 maxNum, numpy.fmax); -0 < +0",
  "isnan(a) ? b : isnan(b) ? a : (" .. MAX_FLOAT .. ")")
exact_float("fma", 3, "a * b + c rounded once (in f32 for f16 and bf16, then rounded to the type)", "fma(a, b, c)")

-- Activations, in forms that stay accurate over the whole range (docs/semantics.md).

-- Constants split into a head exact in the type and a tail, for the f32 and f64 forms:
-- 1/sqrt(2) (gelu), 2 sqrt(2/pi) and its product with 0.044715 (gelu_tanh), and 64 log(2)
-- (the shift that keeps e^a normal where a e^a still is; e^SHL is taken as 1 + SHL, whose
-- error is below 2^-46). Each tail is a literal of its own, so that the reference, in a
-- wider type, is as accurate as the split (a rounded e^tail would not be). LOW (GLOW) and
-- HIGH: where gelu_tanh (gelu) has underflowed to -0, and where both have rounded to a;
-- GTAIL: where gelu's erfc(z) nears the subnormals (z = 9 in f32, 26 in f64).
local function inline(text, names)
  for i = #names, 1, -1 do
    text = text:gsub("%f[%w_]" .. names[i][1] .. "%f[^%w_]", "(" .. names[i][2] .. ")")
  end
  return text
end
local SPLIT = {
  f32 = { C = "0.707106769084930419921875", CL = "1.2101617104478969e-8",
          C1 = "1.5957691669464111328125", C1L = "-4.5340680421052716e-8",
          C2 = "0.071354813873767852783203125", C2L = "2.3988323959931356e-9",
          SH = "44.361419677734375", SHL = "-1.2189787519729714e-7", LOW = "-14", GLOW = "-17", HIGH = "16",
          GTAIL = "-12.75" },
  f64 = { C = "0.70710678118654752440", CL = "-4.8336466567264565e-17",
          C1 = "1.5957691216057307117", C1L = "-9.9693088091109203e-17",
          C2 = "0.071354816272600248776", C2L = "-6.1751499181553155e-19",
          SH = "44.361419555836505424", SHL = "-5.6212373967393701e-15", LOW = "-30", GLOW = "-40", HIGH = "32",
          GTAIL = "-36.75" },
}
local function constants(text, t)
  return (text:gsub("%f[%w_](%u[%u%d]*)%f[^%w_]", function(name)
    return SPLIT[t][name] and "(T)" .. SPLIT[t][name] or name
  end))
end
local function split_steps(list, t)
  local out = {}
  for i, s in ipairs(list) do out[i] = { s[1], constants(s[2], t) } end
  return out
end

-- a e^a where e^a alone would be subnormal (a < -80): e^(a + 64 log 2) 2^-64, whose
-- argument is exact (SH is a multiple of a's ulp there).
local A_EXP_A = "a * (exp(a + SH) * ((T)1 + SHL)) * (T)0x1p-64"

-- The sigmoids (sigmoid, silu, gelu_tanh) without a branch for a warp to split on: one
-- exponential, E = e^-|s| (never overflows), and one division N / (1 + E), its numerator
-- picked by a select on the sign of s (1 or a for s >= 0, E or a E below). sigmoid and
-- silu in f32 and f64 divide and round as the two-sided forms did (the same operations on
-- the same values, so the same results); f16 and bf16, rounded once from f32, take the
-- fast exponential and division, whose errors (26 ulps of f32 where f16 results are not 0,
-- |s| < 18; 124 where bf16's are not, |s| < 104; 2 for the division) stay below 2^-8 ulps
-- of the type. fmax(a, -2^100) keeps a E at -0 for a = -inf; a NaN reaches N / (1 + E)
-- through E.
local SIGMOID16 = { { "E", "tkh_fast_exp(-fabs(a))" } }
elementwise {
  name = "sigmoid", arity = 1, types = { "float" },
  semantics = "1 / (1 + e^-a), as e^a / (1 + e^a) for a < 0 so that neither side overflows",
  steps = { float = { { "E", "exp(-fabs(a))" } }, f16 = SIGMOID16, bf16 = SIGMOID16 },
  compute = { float = "(a >= 0 ? (T)1 : E) / ((T)1 + E)",
              f16 = "tkh_fast_div(a >= 0 ? (T)1 : E, (T)1 + E)", bf16 = "tkh_fast_div(a >= 0 ? (T)1 : E, (T)1 + E)" },
  compare = bounds(4, 3, 5, 5),
}

-- silu f32 and f64 below a = -80 take e^a shifted (A_EXP_A) and the denominator 1.
local SILU = "(a >= 0 ? a : a < (T)-80 ? fmax(a, (T)-0x1p100) * (E * ((T)1 + SHL)) * (T)0x1p-64 : a * E)"
  .. " / (a < (T)-80 ? (T)1 : (T)1 + E)"
local SILU_STEPS = { { "E", "exp(a < (T)-80 ? a + SH : -fabs(a))" } }
local SILU16 = "tkh_fast_div(a >= 0 ? a : fmax(a, (T)-0x1p100) * E, (T)1 + E)"
elementwise {
  name = "silu", arity = 1, types = { "float" },
  semantics = "a * sigmoid(a) (swish); silu(-inf) = -0",
  steps = { f32 = split_steps(SILU_STEPS, "f32"), f64 = split_steps(SILU_STEPS, "f64"),
            f16 = SIGMOID16, bf16 = SIGMOID16 },
  compute = { f32 = constants(SILU, "f32"), f64 = constants(SILU, "f64"), f16 = SILU16, bf16 = SILU16 },
  compare = bounds(4.5, 3.5, 5.5, 5.5),
}

-- softplus f16 and bf16: log1p(E) = 2 atanh(s), s = E / (2 + E) <= 1/3, as s (2 + 2/3 s^2 +
-- 2/5 s^4 + 2/7 s^6 + 2/9 s^8) (the rest is below 2^-19 of it), with the fast exponential
-- and division: a third of log1pf's instructions. Its reference is the function itself.
local SOFTPLUS = "(a > 0 ? a : (T)0) + log1p(exp(-fabs(a)))"
local SOFTPLUS16_STEPS = { { "E", "tkh_fast_exp(-fabs(a))" }, { "X", "tkh_fast_div(E, (T)2 + E)" }, { "X2", "X * X" } }
local SOFTPLUS16 = "(a > 0 ? a : (T)0) + X * fma(fma(fma(fma((T)0.222222222f, X2, (T)0.285714286f), X2, (T)0.4f), X2,"
  .. " (T)0.666666667f), X2, (T)2)"
elementwise {
  name = "softplus", arity = 1, types = { "float" },
  semantics = "log(1 + e^a), as max(a, 0) + log1p(e^-|a|): no overflow, no cancellation",
  steps = { f16 = SOFTPLUS16_STEPS, bf16 = SOFTPLUS16_STEPS },
  compute = { float = SOFTPLUS, f16 = SOFTPLUS16, bf16 = SOFTPLUS16 },
  reference = { f16 = SOFTPLUS, bf16 = SOFTPLUS },
  compare = bounds(4, 3, 6, 6),
}

-- gelu(a) = a/2 erfc(-a / sqrt 2) = a Phi(a). In f16, bf16 and f32, one path for every a
-- (no branch for a warp to split on): with u = |a| (M), u Phi(-u) = h(u) e^(-u^2/2), where
-- h(u) = u/2 erfcx(u / sqrt 2) is smooth: h = x p(x - 1/2) with x = u / (u + K) and p a
-- polynomial (scripts/fit_gelu.py fits it, minimax in relative error, and rounds it to
-- f32). e^(-u^2/2) takes -u^2/2 split exactly, Q + QL, as e^Q (1 + QL). Then gelu =
-- a - a Phi(-u) for a >= 0 (no cancellation: Phi(-u) <= 1/2) and -u Phi(-u) below, in one
-- fma. u stops at 16, past which e^(-u^2/2) is 0 in f32. f32: degree 10, x from the
-- reciprocal with its error corrected (x + CORR is u / (u + 2) to 2^-48), CUDA's expf; f16
-- and bf16 need only 2^-18 of it: degree 7, the plain reciprocal and the fast exponential.
-- The reference is the function itself, a/2 erfc(-a / sqrt 2) in double (its argument's
-- rounding costs 2z^2 2^-53 of it, below 5e-7 ulps of f32).
-- f64 keeps erfc with its argument's rounding corrected to second order, and past GTAIL,
-- where erfc(z) would be subnormal while gelu is not, erfcx's asymptotic series (nine
-- terms: 4e-14 at z = 9), 1/(z sqrt(pi)) (1 - 1/(2z^2) + 3/(2z^2)^2 - ...), e^-z^2 of the
-- split square z^2 = P + D, and e^-P shifted by 64 log 2 (exact: P and SH share a grid) so
-- that only the last product rounds into the subnormals.
local function horner(coefficients, x) -- highest degree first
  local e = "(T)" .. coefficients[1]
  for i = 2, #coefficients do e = "fma(" .. e .. ", " .. x .. ", (T)" .. coefficients[i] .. ")" end
  return e
end
local function gelu_steps(k, p, corrected, exp_fn)
  local steps = {
    { "M", "fmin(fabs(a), (T)16)" }, { "DEN", "M + (T)" .. k }, { "R", "tkh_fast_div((T)1, DEN)" },
    { "X", "M * R" },
  }
  if corrected then -- DEN's rounding (ED) and the quotient's remainder (RHO) are exact
    steps[#steps + 1] = { "ED", "M - (DEN - (T)" .. k .. ")" }
    steps[#steps + 1] = { "RHO", "fma(-X, DEN, M)" }
    steps[#steps + 1] = { "CORR", "fma(-X, ED, RHO) * R" }
  end
  local corr = corrected and "CORR" or "(T)0"
  for _, s in ipairs {
    { "V", "(X - (T)0.5) + " .. corr }, { "P", horner(p, "V") },
    { "MH", "(T)-0.5 * M" }, { "Q", "MH * M" }, { "QL", "fma(MH, M, -Q)" },
    { "E0", exp_fn .. "(Q)" }, { "H", "fma(X, P, fma(X, QL, " .. corr .. ") * P)" },
  } do steps[#steps + 1] = s end
  return steps
end
-- scripts/fit_gelu.py 10 2 0.5 and 7 2.5 0.5 (relative errors in exact arithmetic: 2.1e-8, 5e-7)
local GELU_P32 = { "-0x1.333ef2p-4f", "0x1.276b5cp-6f", "0x1.7a46b6p-3f", "0x1.ccc102p-4f",
  "-0x1.ef7cb8p-4f", "-0x1.ba53e8p-3f", "-0x1.fa9e38p-8f", "0x1.2cd20ap-2f", "0x1.d7d53ep-4f",
  "-0x1.535bb6p-1f", "0x1.5845dcp-1f" }
local GELU_P16 = { "0x1.4900c8p-4f", "0x1.1e0d2cp-3f", "-0x1.acec2ap-5f", "-0x1.0a718ap-2f",
  "0x1.2f175ep-4f", "0x1.0e473cp-1f", "-0x1.bc19f2p-1f", "0x1.69cefp-1f" }
local GELU_FLOAT = "fma(-H, E0, a < 0 ? (T)-0.0 : a)"
local GELU_REFERENCE = "isinf(a) ? (a > 0 ? a : (T)-0.0) : (T)0.5 * a * erfc(-a * (T)0.70710678118654752440)"
local GELU_STEPS = { { "Z", "a * C" }, { "ZL", "fma(a, C, -Z) + a * CL" } }
-- (1/sqrt(pi) as a double head and its tail, so that the f64 reference has it whole.)
local GELU_TAIL = inline("(T)0.5 * a * ((T)0.5641895835477563 + (T)7.6677298065829404e-18) * SERIES / -Z * ((T)1 - ZL / Z)"
  .. " * ((T)1 - D * ((T)1 - D / 2)) * exp(SH - P) * ((T)1 + SHL) * (T)0x1p-64", {
    { "P", "Z * Z" }, { "D", "fma(Z, Z, -P) + (T)2 * Z * ZL + ZL * ZL" }, { "W", "(T)0.5 / (P + D)" },
    { "SERIES", "(T)1 - W * ((T)1 - (T)3 * W * ((T)1 - (T)5 * W * ((T)1 - (T)7 * W * ((T)1 - (T)9 * W"
      .. " * ((T)1 - (T)11 * W * ((T)1 - (T)13 * W * ((T)1 - (T)15 * W * ((T)1 - (T)17 * W))))))))" } })
local GELU = "a < GLOW ? (T)-0.0 : a > HIGH ? a : a < GTAIL ? " .. GELU_TAIL .. " : "
  .. "(T)0.5 * a * (erfc(-Z) + ZL * ((T)1 - Z * ZL) * (T)1.1283791670955125739 * exp(-Z * Z))"
elementwise {
  name = "gelu", arity = 1, types = { "float" },
  semantics = "a/2 (1 + erf(a / sqrt 2)), as a/2 erfc(-a / sqrt 2) (no cancellation for a < 0); "
    .. "gelu(-inf) = -0",
  compute = { float = GELU_FLOAT, f64 = constants(GELU, "f64") },
  steps = { f32 = gelu_steps("2", GELU_P32, true, "exp"), f16 = gelu_steps("2.5", GELU_P16, false, "tkh_fast_exp"),
            bf16 = gelu_steps("2.5", GELU_P16, false, "tkh_fast_exp"), f64 = split_steps(GELU_STEPS, "f64") },
  reference = { f16 = GELU_REFERENCE, bf16 = GELU_REFERENCE, f32 = GELU_REFERENCE },
  compare = bounds(8, 8, 18, 18),
}

-- gelu_tanh(a) = a/2 (1 + tanh(y)) = a sigmoid(2y), 2y = S = a (C1 + C2 a^2). e^S's
-- sensitivity to its argument is |S|, up to ~100 before the result underflows, so f32 and
-- f64 carry S as S + SL: f32 computes S in double (2^-50 of it) and splits it, f64 with
-- error-free products and sums; e^-(S + SL) is e^-S (1 - SL) (SL^2 < 2^-34 of it). One
-- quotient, without a branch: a / (1 + e^-(S + SL)) for S >= -64 (e^64 does not overflow;
-- the denominator's rounding costs less than a e^S / (1 + e^S)'s extra product), and below
-- (a 2^-64 (1 + SHL)) / e^-(S + SH + SL), the shift keeping the quotient's one rounding
-- the last (into the subnormals). a is clamped to [LOW, HIGH] by selects (M): past HIGH,
-- e^-S is 0 and the quotient a (+inf too); below LOW, e^-(S + SH) is inf and the quotient
-- -0 (-inf too); NaN stays NaN through S.
local GELU_TANH_M = { "M", "a < LOW ? LOW : a > HIGH ? HIGH : a" }
local GELU_TANH_E = { "E", "exp(-S - (S < (T)-64 ? SH : (T)0)) * ((T)1 - SL)" }
local GELU_TANH_S32 = "(double)M * fma(0.071354816272600248776, (double)M * (double)M, 1.5957691216057307117)"
local GELU_TANH_STEPS32 = {
  GELU_TANH_M, { "S", "(T)(" .. GELU_TANH_S32 .. ")" }, { "SL", "(T)(" .. GELU_TANH_S32 .. " - (double)S)" },
  GELU_TANH_E,
}
local GELU_TANH_STEPS64 = {
  GELU_TANH_M, { "P", "M * M" }, { "PL", "fma(M, M, -P)" },
  { "Q", "C2 * P" }, { "QL", "fma(C2L, P, fma(C2, PL, fma(C2, P, -Q)))" },
  { "R", "C1 + Q" }, { "RB", "R - C1" }, { "RL", "((C1 - (R - RB)) + (Q - RB)) + (QL + C1L)" },
  { "S", "M * R" }, { "SL", "fma(M, RL, fma(M, R, -S))" },
  GELU_TANH_E,
}
local GELU_TANH = "(S < (T)-64 ? M * ((T)0x1p-64 * ((T)1 + SHL)) : a) / (S < (T)-64 ? E : (T)1 + E)"
-- f16 and bf16 (computed in f32) need no extended S, only the stable sigmoid above: bf16
-- has f32's range, so its results reach 1e-38. S's rounding costs |S| 2^-22 of e^S: 2^-18
-- where f16 results are not 0 (|S| < 18), 2^-15.5 where bf16's are (|S| < 104).
local GELU_TANH16 = { { "S", "a * ((T)1.5957691216057307117 + (T)0.071354816272600248776 * (a * a))" },
  { "E", "tkh_fast_exp(-fabs(S))" } }
elementwise {
  name = "gelu_tanh", arity = 1, types = { "float" },
  semantics = "a/2 (1 + tanh(sqrt(2/pi) (a + 0.044715 a^3))) (gelu approximate='tanh'), as "
    .. "a sigmoid(2 sqrt(2/pi) (a + 0.044715 a^3)); -0 below the range where it underflows, a above "
    .. "the one where it rounds to a",
  compute = { float = "tkh_fast_div(S >= 0 ? a : fmax(a, (T)-0x1p100) * E, (T)1 + E)",
              f32 = constants(GELU_TANH, "f32"), f64 = constants(GELU_TANH, "f64") },
  steps = { float = GELU_TANH16, f32 = split_steps(GELU_TANH_STEPS32, "f32"), f64 = split_steps(GELU_TANH_STEPS64, "f64") },
  compare = bounds(5, 5, 7, 8),
}

-- Approximations: the vendors' fast forms (tokitai_hip/codegen/op_math.h), float only, held to
-- bounds of their own. CUDA documents __expf within 2 + floor(1.173 |a|) ulps: 124 where
-- the result is finite and normal; AMD documents none for its native exp, so the same.
local function fast(name, semantics, expr, f32_bound)
  elementwise { name = name, arity = 1, types = { "f16", "bf16", "f32" }, semantics = semantics,
                compute = { float = expr },
                compare = { f16 = { ulps = ROUNDED }, bf16 = { ulps = ROUNDED }, f32 = { ulps = f32_bound } } }
end
fast("fast_exp", "e^a by the device's fast exponential (CUDA __expf, AMD native exp)", "tkh_fast_exp(a)", 124.5)
fast("fast_sigmoid", "sigmoid(a) from the fast exponential, stable for a < 0 as sigmoid is",
  "a >= 0 ? (T)1 / ((T)1 + tkh_fast_exp(-a)) : tkh_fast_exp(a) / ((T)1 + tkh_fast_exp(a))", 126)

-- Typed signatures (docs/op-files.md): named arrays and scalars of their own types.
-- Comparisons, IEEE: NaN is unordered, so only ne holds for it; -0 == +0.
local COMPARISONS = {
  { "eq", "==", "a equal to b" }, { "ne", "!=", "a not equal to b (true when either is NaN)" },
  { "lt", "<", "a less than b" }, { "le", "<=", "a less than or equal to b" },
  { "gt", ">", "a greater than b" }, { "ge", ">=", "a greater than or equal to b" },
}
for _, c in ipairs(COMPARISONS) do
  elementwise {
    name = c[1], inputs = "T a, T b", outputs = "bool out", types = { "any" },
    semantics = c[3] .. ", as a bool (0 or 1); floats compare as IEEE 754 does: NaN is unordered, -0 equals +0",
    compute = "a " .. c[2] .. " b",
    reference = "R(a " .. c[2] .. " b)",
  }
end

local CLASSES = {
  { "isnan", "a is a NaN", "isnan(a)", "R(ISNAN(a))" },
  { "isinf", "a is +inf or -inf", "isinf(a)", "R(!ISNAN(a) && ISNAN(a - a))" },
  { "isfinite", "a is neither infinite nor NaN", "isfinite(a)", "R(!ISNAN(a - a))" },
  { "signbit", "the sign bit of a is set (-0 too); false for every NaN", "!isnan(a) && signbit(a)",
    "R(!ISNAN(a) && SIGNBIT(a))" },
}
for _, c in ipairs(CLASSES) do
  elementwise {
    name = c[1], inputs = "T a", outputs = "bool out", types = { "float" },
    semantics = c[2] .. ", as a bool (0 or 1)", compute = c[3], reference = c[4],
    degradations = c[1] == "signbit" and { "a NaN's sign is not read: f16 and bf16 are computed in "
      .. "f32, and NVIDIA's conversion of a NaN drops its sign (numpy's signbit(-nan) is true)" } or nil,
  }
end

-- Logic on bool: any non-zero byte reads as true; results are 0 or 1.
elementwise { name = "logical_and", arity = 2, types = { "bool" }, semantics = "a and b",
              compute = "a && b", reference = "R(A && B)" }
elementwise { name = "logical_or", arity = 2, types = { "bool" }, semantics = "a or b",
              compute = "a || b", reference = "R(A || B)" }
elementwise { name = "logical_xor", arity = 2, types = { "bool" }, semantics = "a or b but not both",
              compute = "a != b", reference = "R((A != 0) != (B != 0))" }
elementwise { name = "logical_not", arity = 1, types = { "bool" }, semantics = "not a",
              compute = "!a", reference = "R(A == 0)" }

elementwise {
  name = "where", inputs = "bool cond, T a, T b", outputs = "T out", types = { "any" },
  semantics = "a where cond is true (any non-zero byte), else b (numpy.where, torch.where)",
  compute = "cond ? a : b",
  reference = "cond ? R(a) : R(b)",
}

-- clamp(x, lo, hi) = min(max(x, lo), hi), as numpy.clip and torch.clamp: hi wins when
-- lo > hi; floats use IEEE 754-2019 maximum and minimum (NaN in x, lo or hi gives NaN).
elementwise {
  name = "clamp", inputs = "T x, scalar T lo, scalar T hi", outputs = "T out", types = { "any" },
  semantics = "min(max(x, lo), hi) with lo and hi passed by value; hi when lo > hi; floats: "
    .. "NaN in any operand gives NaN, -0 < +0",
  steps = { integer = { { "M", "x > lo ? x : lo" } },
            float = { { "M", "x > lo ? x : lo > x ? lo : (x == lo && x != 0) ? x : x + lo" } } },
  compute = { integer = "M < hi ? M : hi",
              float = "M < hi ? M : hi < M ? hi : (M == hi && M != 0) ? M : -(-M - hi)" },
  reference = { integer = "R(FMIN(FMAX(x, lo), hi))", float = "R(MINIMUM(MAXIMUM(x, lo), hi))" },
}

-- axpby(alpha, x, beta, y) = alpha * x + beta * y, the scale factors by value.
elementwise {
  name = "axpby", inputs = "scalar T alpha, T x, scalar T beta, T y", outputs = "T out",
  types = { "any" },
  semantics = "alpha * x + beta * y with alpha and beta passed by value; integers wrap; floats "
    .. "round after each product and after the sum (never a fused multiply-add)",
  compute = { integer = "(T)((W)(U)alpha * (W)(U)x + (W)(U)beta * (W)(U)y)",
              float = "alpha * x + beta * y" },
  reference = {
    integer = "R((unsigned __int128)alpha * (unsigned __int128)x + (unsigned __int128)beta * (unsigned __int128)y)",
    f32 = "R(R(alpha * x) + R(beta * y))", f64 = "R(R(alpha * x) + R(beta * y))" },
  degradations = { integer = { "integer overflow wraps instead of trapping" } },
}

-- cast: every pair of the 12 types and bool. What C leaves undefined is defined: a float
-- to an integer rounds toward zero and saturates, NaN gives 0 (CUDA's _rz conversions,
-- Rust's 'as'); integers narrow modulo 2^bits (numpy's astype); integers and wider
-- floats round once to the nearest even float (tkh_f16_nearest and tkh_bf16_nearest where a plain
-- conversion would round twice); anything to bool is != 0 (NaN is true).
local ALL = { "bool", "any" }
local function cast_compute(v)
  local from, to = v.From, v.To
  if to.domain == "bool" then return "x != 0" end
  if from.domain == "bool" then return "(To)x" end
  if to.domain == "integer" then
    if from.domain == "integer" then return "(To)(uint" .. to.bits .. "_t)x" end
    return string.format("isnan(x) ? (To)0 : x <= (From)%s ? (To)%s : x >= (From)%s ? (To)%s : (To)x",
      to.min, to.min, to.max, to.max)
  end
  local narrow = to.name == "f16" or to.name == "bf16"
  if not narrow then return "(To)x" end
  local round = "tkh_" .. to.name .. "_nearest"
  if from.domain == "float" then return from.name == "f64" and round .. "(x)" or "(To)x" end
  if from.bits <= 16 then return "(To)x" end -- exact in f32; the store rounds once
  if from.bits == 32 then return round .. "((double)x)" end
  return round .. "(tkh_" .. (from.family == "signed" and "i" or "u") .. "64_to_f64_odd(x))"
end
local function cast_reference(v)
  local from, to = v.From, v.To
  if to.domain == "bool" then return "R(x != 0)" end
  if to.domain == "float" then return "tkh_ref_to_" .. to.name .. "(x)" end
  if from.domain ~= "float" then return "R(x)" end
  return string.format("ISNAN(x) ? R(0) : x <= (__int128)%s ? R(%s) : x >= (__int128)%s ? R(%s) : R((__int128)x)",
    to.min, to.min, to.max, to.max)
end
elementwise {
  name = "cast", inputs = "From x", outputs = "To out", types = { From = ALL, To = ALL },
  semantics = "x converted to another type: float to integer rounds toward zero and saturates, "
    .. "NaN gives 0; integer to integer wraps modulo 2^bits; to a float rounds once to nearest "
    .. "even; to bool is x != 0",
  compute = cast_compute,
  reference = cast_reference,
}

-- Index-aware reductions: the value and the index of the best element, ties to the
-- lowest index (numpy.argmin / argmax; torch.min / max along a dimension give both). A
-- NaN is preferred to every number, as numpy's argmin and argmax return the first NaN.
reduction {
  name = "argmin",
  types = { "any" },
  semantics = "the smallest element and its index (i64), the first of equals (-0 equals +0); "
    .. "floats: the first NaN, if any",
  better = { integer = "b < a", float = "(b != b && a == a) || b < a" },
}
reduction {
  name = "argmax",
  types = { "any" },
  semantics = "the largest element and its index (i64), the first of equals (-0 equals +0); "
    .. "floats: the first NaN, if any",
  better = { integer = "b > a", float = "(b != b && a == a) || b > a" },
}

-- Normalizations along an axis (docs/normalizations.md): reduction stages, then a map of
-- each element (or a post step of the row). Numerically stable: softmax and its kin
-- subtract the row's largest element before exp; layer_norm's variance is two-pass (the
-- centred squares of a second pass over the row, biased: divided by n). 16-bit types
-- accumulate in f32. fmax skips NaN, so a row's NaN reaches every output through the sum.
local ROW_MAX = { "m", identity = "-(ACC)INFINITY", combine = "fmax(a, b)" }
local EXP_SUM = { "s", identity = "(ACC)0", map = "exp(x - m)", combine = "a + b" }
local FINITE_M = "m == (ACC)INFINITY || m == -(ACC)INFINITY ? (ACC)0 : m"
normalization {
  name = "softmax", types = { "float" },
  semantics = "exp(x - m) / sum of exp(x - m) along the axis, m the row's largest element; "
    .. "a row holding NaN, or +inf, or only -inf, gives NaN",
  reductions = { ROW_MAX, { "r", identity = "(ACC)0", map = "exp(x - m)", combine = "a + b", post = "(ACC)1 / a" } },
  map = "exp(x - m) * r", -- one division a row, not one an element
}
normalization {
  name = "log_softmax", types = { "float" },
  semantics = "x - m - log(sum of exp(x - m)) along the axis, m the row's largest element",
  reductions = { ROW_MAX, EXP_SUM },
  map = "x - m - log(s)",
}
normalization {
  name = "logsumexp", types = { "float" },
  semantics = "m + log(sum of exp(x - m)) along the axis (the axis removed), m the row's largest "
    .. "element, or 0 where that is infinite (torch.logsumexp): -inf for a row of -inf, +inf for "
    .. "a row holding +inf, NaN for a row holding NaN",
  reductions = { ROW_MAX, { "s", identity = "(ACC)0", map = "exp(x - (" .. FINITE_M .. "))", combine = "a + b" } },
  post = "log(s) + (" .. FINITE_M .. ")",
}
normalization {
  name = "layer_norm", types = { "float" },
  inputs = "T x, column T weight = 1, column T bias = 0, scalar ACC eps",
  semantics = "(x - mean) / sqrt(var + eps) * weight + bias along the axis, var the biased "
    .. "variance from a second pass (the centred squares); weight 1 and bias 0 when not given",
  reductions = {
    { "mean", identity = "(ACC)0", combine = "a + b", post = "a / n" },
    { "rstd", identity = "(ACC)0", map = "(x - mean) * (x - mean)", combine = "a + b", post = "rsqrt(a / n + eps)" },
  },
  map = "(x - mean) * rstd * weight + bias",
}
normalization {
  name = "rms_norm", types = { "float" },
  inputs = "T x, column T weight = 1, scalar ACC eps",
  semantics = "x / sqrt(mean of x^2 + eps) * weight along the axis; weight 1 when not given",
  reductions = { { "rstd", identity = "(ACC)0", map = "x * x", combine = "a + b", post = "rsqrt(a / n + eps)" } },
  map = "x * rstd * weight",
}

-- Matrix products (docs/matmul.md): out[..., m, n] = epilogue(sum over k of a[..., m, k] *
-- b[..., k, n]), batched and broadcast as numpy.matmul and torch.matmul do. f16 and bf16
-- accumulate in f32; i8 in i32, wrapping (the sum modulo 2^32, as torch._int_mm's i32).
matmul {
  name = "matmul", types = { "f16", "bf16", "f32", "f64", "i8" },
  semantics = "the matrix product a @ b (numpy.matmul): batch dimensions broadcast; a 1-D a is a row "
    .. "and a 1-D b a column, each dropped from the result; i8 gives i32, modulo 2^32",
}
-- torch.nn.functional.linear, then an activation: x @ weight^T + bias, weight [n, k] as
-- torch keeps it, bias optional (0). gelu is torch's default, erf-based, form.
local LINEAR = {
  { "linear", "v", "x @ weight^T + bias" },
  { "linear_relu", "tkh_relu(v)", "relu(x @ weight^T + bias) (torch.relu: NaN stays NaN)" },
  { "linear_gelu", "v * 0.5f * (1 + erf(v * 0.70710678118654752f))",
    "gelu(x @ weight^T + bias), v * (1 + erf(v / sqrt(2))) / 2 (torch's default gelu)" },
  { "linear_silu", "v / (1 + exp(-v))", "silu(x @ weight^T + bias), v / (1 + exp(-v))" },
}
for _, l in ipairs(LINEAR) do
  matmul {
    name = l[1], types = { "f16", "bf16", "f32" },
    inputs = "T x, T weight, column T bias = 0", b_layout = "nk",
    epilogue = l[2]:gsub("v", "(acc + bias)"),
    semantics = l[3] .. ", accumulated in f32; x [..., k], weight [n, k], bias [n] or NULL (0)",
  }
end
