-- The device libraries' documented errors for the math functions, in ulps of the exact
-- value (the vendor's maximum error plus 0.5: CUDA states its error against the correctly
-- rounded result): the CUDA C++ Programming Guide's tables (CUDA 12.8 to 13) and OCML's.
-- f16 and bf16 are computed in f32. The core catalog's math ops are compared within these
-- (ops/core.lua, through the op files' global 'function_ulps'), and the normalizations'
-- oracle adds them where an expression calls a function (gen/tkh/expr.lua).
local M = {}

-- name: nvidia f32, f64, amd f32, f64.
M.ULPS = {
  exp = { 2.5, 1.5, 3.5, 3.5 }, exp2 = { 2.5, 1.5, 3.5, 3.5 }, expm1 = { 1.5, 1.5, 3.5, 3.5 },
  log = { 1.5, 1.5, 3.5, 3.5 }, log2 = { 1.5, 1.5, 3.5, 3.5 }, log10 = { 2.5, 1.5, 3.5, 3.5 },
  log1p = { 1.5, 1.5, 2.5, 2.5 }, sin = { 2.5, 2.5, 4.5, 4.5 }, cos = { 2.5, 2.5, 4.5, 4.5 },
  tan = { 4.5, 2.5, 5.5, 5.5 }, asin = { 2.5, 2.5, 4.5, 4.5 }, acos = { 2.5, 2.5, 4.5, 4.5 },
  atan = { 2.5, 2.5, 5.5, 5.5 }, sinh = { 3.5, 2.5, 4.5, 4.5 }, cosh = { 2.5, 1.5, 4.5, 4.5 },
  tanh = { 2.5, 1.5, 5.5, 5.5 }, asinh = { 3.5, 3.5, 4.5, 4.5 }, acosh = { 4.5, 3.5, 4.5, 4.5 },
  atanh = { 3.5, 2.5, 5.5, 5.5 }, erf = { 2.5, 2.5, 16.5, 16.5 }, erfc = { 4.5, 5.5, 16.5, 16.5 },
  cbrt = { 1.5, 1.5, 2.5, 2.5 }, rsqrt = { 2.5, 1.5, 2.5, 2.5 }, atan2 = { 3.5, 2.5, 6.5, 6.5 },
  pow = { 4.5, 2.5, 16.5, 16.5 }, hypot = { 3.5, 2.5, 4.5, 4.5 },
}

-- Function f's bound on a platform ("amd", "nvidia"; the larger of both for any other)
-- for a compute type of 'bits' (32 or 64).
function M.ulps(f, platform, bits)
  local row = M.ULPS[f]
  if not row then return nil end
  local col = bits == 64 and 2 or 1
  if platform == "nvidia" then return row[col] end
  if platform == "amd" then return row[col + 2] end
  return math.max(row[col], row[col + 2])
end

return M
