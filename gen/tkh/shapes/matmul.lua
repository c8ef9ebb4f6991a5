-- The matrix-product shape: out[..., m, n] = epilogue(sum over k of a[..., m, k] * b[..., k, n])
-- with NumPy's matmul rules for batches and 1-D operands, one kernel per type
-- (templates/matmul.*.tpl, docs/matmul.md).
local types = require "tkh.types"
local expr = require "tkh.expr"
local signature = require "tkh.signature"
local op_fields = require "tkh.op_fields"
local check_expression, check_keys = op_fields.check_expression, op_fields.check_keys
local lookup, per_type_list = op_fields.lookup, op_fields.per_type_list
local expand_types, keep_kernel = op_fields.expand_types, op_fields.keep_kernel

local M = {}

M.fields = {
  name = "required", types = "required", semantics = "required", inputs = "optional",
  outputs = "optional", accumulator = "optional", output = "optional", b_layout = "optional",
  epilogue = "optional", degradations = "optional", obligations = "optional", non_claims = "optional",
}

-- How the second operand lies: [..., k, n] (matmul's) or [..., n, k] (a weight as
-- torch.nn.functional.linear takes it: x @ w^T).
M.B_LAYOUTS = { kn = true, nk = true }

-- The accumulator where the op names none: f32 for the 16-bit floats, i32 for the 8- and
-- 16-bit integers (what cuBLAS and torch._int_mm use), the type itself otherwise.
local function default_accumulator(t)
  if t.domain == "float" then return t.bits == 16 and "f32" or t.name end
  if t.domain == "integer" and t.bits <= 16 then return t.family == "unsigned" and "u32" or "i32" end
  return t.name
end

-- How each input after a and b lies against the output [..., m, n]: a column [n] (a bias),
-- a row [m] (a scale per row), or an addend shaped like the output (broadcast to it, as
-- NumPy broadcasts: a residual, beta's c).
local function extent(a)
  return a.column and "n" or a.row and "m" or "mn"
end

-- The kernels of one matrix-product declaration: two operands a and b (the first two
-- inputs), then its extras, inputs the epilogue reads at each output (columns, rows and
-- addends; one declared with a default may be absent), scalars, and an epilogue over the
-- accumulator 'acc' and those, evaluated in the accumulator's type and stored in the
-- output's.
function M.kernels(def, op, fail, filter)
  local seen = {}
  local args = signature.parse(def.inputs or "T a, T b", "inputs", true, seen, fail, "product")
  local outputs = signature.parse(def.outputs or "OUT out", "outputs", false, seen, fail)
  if #outputs ~= 1 then fail("outputs: a matrix product writes one output, got %d", #outputs) end
  if #args < 2 or args[1].scalar or args[1].column or args[1].row or args[1].default or args[2].scalar
    or args[2].column or args[2].row or args[2].default then
    fail("inputs: the first two inputs are the operands a and b (\"T a, T b\", no defaults); columns, rows, "
      .. "addends and scalars come after")
  end
  if args[1].type ~= "T" or args[2].type ~= "T" then fail("inputs: the operands a and b are of type T") end
  for _, a in ipairs(args) do
    a.param = a.name
    if a.name == "acc" or a.name:match("^tkh") or a.name:match("^p_") then
      fail("inputs: the name '%s' is the kernel's own (acc, and names starting with tkh or p_)", a.name)
    end
  end
  outputs[1].param = outputs[1].name
  local layout = def.b_layout or "kn"
  if not M.B_LAYOUTS[layout] then
    fail("b_layout must be \"kn\" (b is [..., k, n]) or \"nk\" (b is [..., n, k], as linear's weight), got %s",
      tostring(layout))
  end
  for _, field in ipairs { "accumulator", "output", "epilogue" } do
    if type(def[field]) == "table" then check_keys(def[field], field, fail) end
  end
  op.arity = 2
  for i = 3, #args do if not args[i].scalar then op.arity = op.arity + 1 end end
  local kernels = {}
  for _, tname in ipairs(expand_types(def.types, fail)) do
    local t = types.by_name[tname]
    if t.domain ~= "float" and t.domain ~= "integer" then fail("matrix products are for numbers, not %s", tname) end
    local function type_field(field, default)
      local v = def[field]
      local name = type(v) == "table" and lookup(v, tname) or type(v) == "string" and v or default
      if name == "T" then name = tname end
      local x = types.by_name[name]
      if not x then fail("%s for %s: unknown type '%s'", field, tname, tostring(name)) end
      return x
    end
    local acc = type_field("accumulator", default_accumulator(t))
    local out_type = type_field("output", t.domain == "integer" and acc.name or tname)
    if acc.domain ~= t.domain or acc.bits < t.bits then
      fail("accumulator for %s: %s holds neither its products nor its domain", tname, acc.name)
    end
    -- The check compares a float output within the epilogue's bound, an integer one exactly
    -- modulo 2^bits of the accumulator: the output must keep that meaning (a float sum cast
    -- to an integer would truncate, a narrower integer would drop the bits compared).
    if out_type.domain ~= t.domain then
      fail("output for %s: %s is not a%s type (a %s product's output is %s)", tname, out_type.name,
        t.domain == "float" and " float" or "n integer", t.domain,
        t.domain == "float" and "f16, bf16, f32 or f64" or "an integer type of at least its accumulator's bits")
    end
    if t.domain == "integer" and out_type.bits < acc.bits then
      fail("output for %s: %s is narrower than the accumulator %s (an integer product's output holds the sum "
        .. "modulo 2^%d: an integer type of at least %d bits)", tname, out_type.name, acc.name, acc.bits, acc.bits)
    end
    local function typed(o)
      local x = types.by_name[o.type == "T" and tname or o.type == "ACC" and acc.name or o.type == "OUT"
        and out_type.name or o.type]
      if not x then fail("inputs: unknown type '%s' for '%s' (T, ACC, OUT or a type name)", o.type, o.name) end
      return { name = o.name, type = x, scalar = o.scalar, default = o.default, param = o.param }
    end
    local k = { op = op, type = t, label = tname, binding = { T = tname }, acc = acc, out_type = out_type,
                args = {}, inputs = {}, extras = {}, scalars = {}, b_layout = layout,
                degradations = per_type_list(def.degradations, "degradations", tname, fail) }
    for i, a in ipairs(args) do
      local x = typed(a)
      k.args[#k.args + 1] = x
      if x.scalar then k.scalars[#k.scalars + 1] = x else k.inputs[#k.inputs + 1] = x end
      if i > 2 and not x.scalar then
        x.extent = extent(a)
        k.extras[#k.extras + 1] = x
      end
    end
    k.outputs = { typed(outputs[1]) }
    k.outputs[1].compare = t.domain == "float" and "bound" or "exact"
    if t.domain == "float" then
      k.outputs[1].comparison = string.format("within a bound on the device's sum of k products in %s in any "
        .. "order: |device - exact| <= gamma(2k + 2) at twice %s's unit roundoff times the sum of |products|, "
        .. "plus underflow, carried through the epilogue (docs/matmul.md)", acc.name, acc.name)
    else
      k.outputs[1].comparison = string.format("exact: every element equal to the sum of the k products modulo "
        .. "2^%d, as the %s accumulator wraps", acc.bits, acc.name)
    end
    k.output_names = { outputs[1].name }
    k.epilogue = type(def.epilogue) == "table" and lookup(def.epilogue, tname) or def.epilogue or "acc"
    check_expression(k.epilogue, "epilogue", fail)
    local scope = { T = "type", ACC = "type", OUT = "type", acc = "operand" }
    for _, x in ipairs(k.args) do if x ~= k.inputs[1] and x ~= k.inputs[2] then scope[x.name] = "operand" end end
    signature.check_names(k.epilogue, "epilogue", scope, fail)
    if t.domain == "integer" then
      -- Exact outputs: the sum is exact modulo 2^bits on both sides; an epilogue would need
      -- a bound of its own.
      if k.epilogue ~= "acc" or #k.extras > 0 or #k.scalars > 0 then
        fail("integer matrix products take no epilogue, extra inputs or scalars (compared exactly), for %s", tname)
      end
    else
      local ok, err = pcall(function()
        local tree = expr.parse(k.epilogue, function(w) return scope[w] == "type" or signature.is_c_type(w) end)
        expr.bound_c(tree, k.epilogue, { name = function() return "v" end, literal = function() return "0" end,
          ulps = function() return "0" end, exact = function(n) return n ~= "acc" end })
        return tree
      end)
      if not ok then fail("epilogue for %s: %s", tname, err) end
      k.epilogue_tree = err
    end
    -- Checkable by projections (TKH_ORACLE_PROJECTED): the output is the sum, or the sum
    -- plus its one extra input, with no scalars (the check adds that input's projection).
    local e = k.epilogue:gsub("%s", "")
    while e:match("^%(.*%)$") do e = e:sub(2, -2) end
    local plus = e:match("^acc%+([%a_][%w_]*)$") or e:match("^([%a_][%w_]*)%+acc$")
    k.projectable = #k.scalars == 0 and ((e == "acc" and #k.extras == 0)
      or (plus ~= nil and #k.extras == 1 and k.extras[1].name == plus))
    keep_kernel(kernels, k, op, def, tname, filter)
  end
  return kernels
end

-- A product's kernel source: these templates one after another, each over the same values.
M.kernel_templates = { "matmul.hip.tpl", "matmul_mma.hip.tpl", "matmul_projection.hip.tpl", "matmul_mfma.hip.tpl",
  "matmul_wgmma.hip.tpl", "matmul_small_m.hip.tpl", "matmul_launch.hip.tpl" }

-- The names those templates share (templates/matmul*.hip.tpl): the element and output
-- types, the accumulator as the kernel holds it (integers in their unsigned type, which
-- wraps), a and b, the kernels' parameters, the launcher's arguments, the names passed on,
-- the output's array index, and the matrix instructions of this type, if any: mma
-- (NVIDIA sm_80 and later: 16-bit floats and i8 on warp tiles of mma.sync in chunks of 8 or
-- 16 elements, f64 on m16n8k8 tiles, f32 on fused multiply-adds fed the same way: fma) and
-- mfma (AMD gfx90a: f16, bf16 and i8 on 16 x 16 x 16 instructions, f32 and f64 on 16 x 16 x
-- 4 ones; e: the element as the kernel moves it, f: a lane's operand of one instruction, acc:
-- its accumulators, op: the instruction's function in tokitai_hip/codegen/matrix_core.h, with
-- _tiny and _wide for 16-bit floats), and
-- wgmma (NVIDIA sm_90a: 16-bit floats on warpgroup tiles of m64nNk16 from shared memory, i8
-- on m64nNk32, N 256 or 128; e: the element, acc: the accumulator, map: the element's type for the tensor
-- maps, mma: the instruction's function, op: its name in the kernel's comment; kmajor_only:
-- both operands K-major, those that are not copied so first (8-bit operands); staged: outputs
-- through shared memory and the accelerator's stores, where the epilogue calls no function of
-- the math library: unrolled over a thread's 128 sums, such a call's code overflows the
-- instruction cache; those epilogues take the sums through shared memory instead and run in a
-- loop not unrolled, docs/matmul.md).
function M.template_locals(k)
  local L = { S = k.type.c, O = k.out_type, float = k.type.domain == "float", a = k.inputs[1], b = k.inputs[2] }
  L.R = L.float and k.acc.compute or k.acc.unsigned
  local params, args, names = {}, {}, {}
  for i, x in ipairs(k.inputs) do
    params[#params + 1] = "const " .. x.type.c .. " *__restrict__ p_" .. x.name
    args[#args + 1] = "(const " .. x.type.c .. " *)inputs[" .. (i - 1) .. "]"
    names[#names + 1] = "p_" .. x.name
  end
  params[#params + 1] = L.O.c .. " *__restrict__ p_out"
  args[#args + 1] = "(" .. L.O.c .. " *)outputs[0]"
  names[#names + 1] = "p_out"
  for _, s in ipairs(k.scalars) do
    params[#params + 1] = s.type.c .. " p_" .. s.name
    args[#args + 1] = "*(const " .. s.type.c .. " *)scalars[" .. s.index .. "]"
    names[#names + 1] = "p_" .. s.name
  end
  L.params, L.args, L.pass, L.out_index = params, args, table.concat(names, ", "), #k.inputs
  local t, acc, half = k.type.name, k.acc.name, L.float and k.type.bits == 16
  L.mma = (half and acc == "f32" and { epc = 8, e = "uint16_t", bm = 128, bn = 256 })
    or (t == "i8" and acc == "i32" and { epc = 16, e = "int8_t", bm = 128, bn = 256 })
    or (t == "f64" and acc == "f64" and { epc = 2, e = "double", bm = 128, bn = 128 })
    or (t == "f32" and acc == "f32" and { epc = 4, e = "float", bm = 128, bn = 128, fma = true })
  local staged = not (k.epilogue_tree and expr.calls_library(k.epilogue_tree))
  L.wgmma = (half and acc == "f32" and { e = "uint16_t", acc = "float", staged = staged,
      map = t == "bf16" and "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16" or "CU_TENSOR_MAP_DATA_TYPE_FLOAT16",
      mma = "tkh_wgmma<T::bn, " .. (t == "bf16" and "true" or "false") .. ", !decltype(AK)::value, !decltype(BK)::value>",
      op = "wgmma.mma_async m64nBNk16.f32." .. t .. "." .. t })
    or (t == "i8" and acc == "i32" and { e = "int8_t", acc = "int32_t", staged = staged, kmajor_only = true,
      map = "CU_TENSOR_MAP_DATA_TYPE_UINT8", mma = "tkh_wgmma_s8<T::bn>", op = "wgmma.mma_async m64nBNk32.s32.s8.s8" })
  L.mfma = (half and acc == "f32" and { e = "uint16_t", f = "uint64_t", acc = "tkh_f32x4", op = "tkh_mfma_" .. t, wide = true })
    or (t == "i8" and acc == "i32" and { e = "int8_t", f = "uint32_t", acc = "tkh_i32x4", op = "tkh_mfma_i8" })
    or (t == "f32" and acc == "f32" and { e = "float", f = "float", acc = "tkh_f32x4", op = "tkh_mfma_f32" })
    or (t == "f64" and acc == "f64" and { e = "double", f = "double", acc = "tkh_f64x4", op = "tkh_mfma_f64" })
  return L
end

return M
