-- The scalar types, as data. Everything per type in the generated code comes from here.
--   c        the C type;  bits  its width
--   family   'signed' | 'unsigned' | 'float'
--   unsigned the unsigned type of the same width (integers: wrapping arithmetic is
--            done there, so neither C nor HIP code depends on signed overflow)
--   min/max  C expressions for the limits;  fmt  the <inttypes.h> printf macro
local M = {}

M.order = {}   -- names, in the order listings show them
M.by_name = {}

local function int(bits, signed)
  local u = "uint" .. bits .. "_t"
  return {
    c = (signed and "int" or "uint") .. bits .. "_t",
    bits = bits,
    size = bits // 8,
    family = signed and "signed" or "unsigned",
    unsigned = u,
    min = signed and ("INT" .. bits .. "_MIN") or "0",
    max = (signed and "INT" or "UINT") .. bits .. "_MAX",
    fmt = signed and ("PRId" .. bits) or ("PRIu" .. bits),
    domain = "integer",
  }
end

for _, signed in ipairs { true, false } do
  for _, bits in ipairs { 8, 16, 32, 64 } do
    local name = (signed and "i" or "u") .. bits
    local t = int(bits, signed)
    t.name = name
    M.by_name[name] = t
    M.order[#M.order + 1] = name
  end
end

-- The keys an op's 'compute' table may use, most specific first, for a type.
function M.compute_keys(name)
  local t = M.by_name[name]
  return { name, t.family, t.domain, "any" }
end

function M.is_type(name)
  return M.by_name[name] ~= nil
end

return M
