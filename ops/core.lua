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

-- IEEE 754-2019 minimum and maximum, shared by min / max and amin / amax: NaN if either
-- operand is NaN, and -0 < +0. Written without signbit so that the CPU checks vectorize
-- (3x faster folds): when neither operand is larger, equal non-zero operands are the same
-- value; a tie of zeros and any NaN go through arithmetic that gives the answer (max:
-- a + b is -0 only for -0 + -0; min: -(-a - b) is -0 unless both are +0; NaN stays NaN).
local MIN_FLOAT = "a < b ? a : b < a ? b : (a == b && a != 0) ? a : -(-a - b)"
local MAX_FLOAT = "a > b ? a : b > a ? b : (a == b && a != 0) ? a : a + b"
local MIN_FLOAT_REF = "(ISNAN(A) || ISNAN(B)) ? R(QNAN) : (A == B) ? R(SIGNBIT(A) ? A : B) : R(FMIN(A, B))"
local MAX_FLOAT_REF = "(ISNAN(A) || ISNAN(B)) ? R(QNAN) : (A == B) ? R(SIGNBIT(A) ? B : A) : R(FMAX(A, B))"

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
reduction {
  name = "sum",
  types = { "any" },
  semantics = "sum of all elements; integers wrap modulo 2^bits; floats accumulate in the "
    .. "compute type (f32 for f16 and bf16) and round once to the storage type",
  identity = { integer = "(T)0", float = "(T)0" },
  combine = { integer = "(T)((W)a + (W)b)", float = "a + b" },
  reference = { integer = "R(A + B)", float = "R(A + B)" },
  compare = { float = "sum_bound" },
  degradations = { integer = { "integer overflow wraps instead of trapping" },
                   float = { "float sums depend on the summation order; compared within a stated bound" } },
}
reduction {
  name = "amin",
  types = { "any" },
  semantics = "smallest element; floats: NaN if any element is NaN, -0 < +0",
  identity = { integer = "TMAX", float = "(T)INFINITY" },
  combine = { integer = "a < b ? a : b", float = MIN_FLOAT },
  reference = { integer = "R(A < B ? A : B)", float = MIN_FLOAT_REF },
}
reduction {
  name = "amax",
  types = { "any" },
  semantics = "largest element; floats: NaN if any element is NaN, -0 < +0",
  identity = { integer = "TMIN", float = "(T)-INFINITY" },
  combine = { integer = "a > b ? a : b", float = MAX_FLOAT },
  reference = { integer = "R(A > B ? A : B)", float = MAX_FLOAT_REF },
}
