-- The scalar types, as data. Everything per type in the generated code comes from here.
--   c        the C type in memory;  compute  the C type the op is computed in (T)
--   load / store  conversions between them (nil: the same type)
--   pack     a 16-byte vector's C++ type as normalization kernels hold it, where not
--            tkh_pack<c, V>, with <pack>_at reading an element (tokitai_hip/codegen/thread_group.h)
--   bits     width in memory;  family  'signed' | 'unsigned' | 'float' | 'bool'
--   dlpack   its DLPack type code (dlpack.h's kDLInt ..., TKH_DLPACK_BOOL of
--            tokitai_hip/scalar_types.h), with 'bits' bits and one lane
--   unsigned the unsigned type of the same width (U), integers only
--   wide     an unsigned type at least as wide as int (W), so that integer arithmetic is
--            never promoted to signed int: neither C nor HIP code may overflow a signed type
--   min/max  C expressions for the limits;  fmt  the <inttypes.h> printf macro (integers)
--   bits_c   the unsigned C type of the stored bits;  inf_bits  +infinity's bits (floats:
--            a value is NaN when its bits without the sign exceed them)
--   mantissa, emin, emax  floats: significand bits (with the implicit one) and the
--            exponents of the smallest and largest normal binades
--   digits   floats: the significant digits of "%.<digits>g" that print every value of the
--            compute type exactly enough to read it back (9 for f32, 17 for f64)
--   reference  floats: the C type an op's expression is evaluated in for the ulp rule
--            (double for f16, bf16, f32: 29 bits beyond f32; long double for f64: x87's
--            64-bit significand on x86-64, 11 bits beyond f64)
local M = {}

M.order = {}   -- names, in the order listings show them
M.by_name = {}

local function add(name, t)
  t.name = name
  t.bits_c = "uint" .. t.bits .. "_t"
  M.by_name[name] = t
  M.order[#M.order + 1] = name
end

for _, signed in ipairs { true, false } do
  for _, bits in ipairs { 8, 16, 32, 64 } do
    local c = (signed and "int" or "uint") .. bits .. "_t"
    add((signed and "i" or "u") .. bits, {
      c = c, compute = c, bits = bits,
      family = signed and "signed" or "unsigned", domain = "integer",
      dlpack = signed and "kDLInt" or "kDLUInt",
      unsigned = "uint" .. bits .. "_t",
      wide = bits == 64 and "uint64_t" or "uint32_t",
      min = signed and ("INT" .. bits .. "_MIN") or "0",
      max = (signed and "INT" or "UINT") .. bits .. "_MAX",
      fmt = signed and ("PRId" .. bits) or ("PRIu" .. bits),
      edges = { "0", "1", "2", "(T)-1", "TMIN", "TMAX", "(T)(TMIN + 1)", "(T)(TMAX - 1)",
                "(T)(BITS - 1)", "(T)BITS", "(T)(BITS + 1)" },
    })
  end
end

-- f16 and bf16 are stored as bits and computed in f32, then rounded to nearest even:
-- the device and the oracle run the same conversions (tokitai_hip/codegen/scalar.h).
-- 'edges' are values every CPU test of the type covers, as C expressions of the memory
-- type: zeros of both signs, ones, infinities, a NaN, the extremes, the smallest normal
-- and subnormal, and values whose results round.
add("f16", { c = "uint16_t", compute = "float", load = "tkh_f16_to_f32",
             store = "tkh_f32_to_f16", bits = 16, inf_bits = "0x7C00u", family = "float", domain = "float",
             dlpack = "kDLFloat", digits = 9, mantissa = 11, emin = -14, emax = 15, reference = "double",
             edges = { "0x0000", "0x8000", "0x3C00", "0xBC00", "0x7C00", "0xFC00", "0x7E00",
                       "0x7BFF", "0xFBFF", "0x0400", "0x0001", "0x8001", "0x3800", "0x4200",
                       "0x3555", "0x5A3F" } })
add("bf16", { c = "uint16_t", compute = "float", load = "tkh_bf16_to_f32", pack = "tkh_bf16_pack",
              store = "tkh_f32_to_bf16", bits = 16, inf_bits = "0x7F80u", family = "float", domain = "float",
              dlpack = "kDLBfloat", digits = 9, mantissa = 8, emin = -126, emax = 127, reference = "double",
              edges = { "0x0000", "0x8000", "0x3F80", "0xBF80", "0x7F80", "0xFF80", "0x7FC0",
                        "0x7F7F", "0xFF7F", "0x0080", "0x0001", "0x8001", "0x3F00", "0x4040",
                        "0x3EAB", "0x4491" } })
add("f32", { c = "float", compute = "float", bits = 32, inf_bits = "0x7F800000u", family = "float", domain = "float",
             dlpack = "kDLFloat", digits = 9, mantissa = 24, emin = -126, emax = 127, reference = "double",
             edges = { "0.0f", "-0.0f", "1.0f", "-1.0f", "INFINITY", "-INFINITY", "NAN", "FLT_MAX",
                       "-FLT_MAX", "FLT_MIN", "0x1p-149f", "-0x1p-149f", "0.5f", "3.0f",
                       "0x1.555556p-2f", "0x1.fffffep+23f", "1e-30f" } })
add("f64", { c = "double", compute = "double", bits = 64, inf_bits = "0x7FF0000000000000u", family = "float", domain = "float",
             dlpack = "kDLFloat", digits = 17, mantissa = 53, emin = -1022, emax = 1023, reference = "long double",
             edges = { "0.0", "-0.0", "1.0", "-1.0", "INFINITY", "-INFINITY", "NAN", "DBL_MAX",
                       "-DBL_MAX", "DBL_MIN", "0x1p-1074", "-0x1p-1074", "0.5", "3.0",
                       "0x1.5555555555555p-2", "0x1.fffffffffffffp+52", "1e-300" } })

-- bool: one byte, 0 or 1 (masks, comparison results). Computed in C's bool, so any
-- non-zero byte reads as true and every result is stored as 0 or 1. Only a declaration
-- that names it gets it: the groups (any, integer, ...) do not include it.
add("bool", { c = "uint8_t", compute = "bool", bits = 8, family = "bool", domain = "bool", dlpack = "TKH_DLPACK_BOOL",
              fmt = "PRIu8", min = "0", max = "1", edges = { "0", "1" } })

-- The keys an op's table may use, most specific first, for a type.
function M.keys(name)
  local t = M.by_name[name]
  if t.domain == "bool" then return { name, "any" } end
  return { name, t.family, t.domain, "any" }
end

-- The numeric types a group stands for (bool is in none).
function M.group(entry)
  local names = {}
  for _, name in ipairs(M.order) do
    local t = M.by_name[name]
    if t.domain ~= "bool" and (entry == "any" or t.family == entry or t.domain == entry) then
      names[#names + 1] = name
    end
  end
  return names
end

function M.is_type(name)
  return M.by_name[name] ~= nil
end

-- Keys that are not type names but still valid in an op's per-type tables.
M.group_keys = { any = true, integer = true, float = true, signed = true, unsigned = true }

return M
