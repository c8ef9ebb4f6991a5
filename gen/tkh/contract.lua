-- The execution contract every elementwise kernel runs under: what a run must show,
-- what the caller must hold to, and what a passing run does not claim. Kept from the
-- pilot's lowering contract; the registry and the manifest carry it.
local M = {}

M.required_evidence = {
  "admission: the kernel was built for the selected device's architecture",
  "agreement: every output element compared was equal to the CPU oracle's, or within its stated bound",
  "provenance: kernel source, compiler, build and device fingerprints recorded",
}

M.non_claims = {
  "not machine-code verification: the oracle checks results, not the ISA",
  "not performance evidence: see tokitai-hip bench",
  "no claim about inputs other than the ones compared in this run",
}

local function join(names)
  if #names == 1 then return names[1] end
  return table.concat(names, ", ", 1, #names - 1) .. " and " .. names[#names]
end

-- The obligations 'out' and, where the kernel takes scalars, that they come by value, the
-- same for every 'unit' (element, row).
local function with_scalars(out, k, unit)
  if #k.scalars > 0 then
    local names = {}
    for _, x in ipairs(k.scalars) do names[#names + 1] = x.param end
    out[#out + 1] = string.format("%s %s passed by value, the same for every %s", join(names),
      #names > 1 and "are" or "is", unit)
  end
  return out
end

function M.obligations(k)
  local arrays, typed, same = {}, {}, true
  for _, list in ipairs { k.inputs, k.outputs } do
    for _, x in ipairs(list) do
      arrays[#arrays + 1] = x.param
      typed[#typed + 1] = x.param .. " " .. x.type.name
      same = same and x.type == k.inputs[1].type
    end
  end
  local first
  if k.op.shape == "matmul" then
    local x, w, o = k.inputs[1].param, k.inputs[2].param, k.outputs[1].param
    local out = {
      string.format("flat: %s is m x k, %s is %s, %s is m x n, row-major and dense%s", x, w,
        k.b_layout == "nk" and "n x k" or "k x n", o, #k.extras > 0 and "; each column given is n elements, each row m, "
        .. "each addend m x n (NULL: its default)" or ""),
      string.format("each element of %s is the epilogue of the sum over k of the products along one row of %s and one %s of %s, accumulated in %s",
        o, x, k.b_layout == "nk" and "row" or "column", w, k.acc.name),
      "over tensors: NumPy's matmul rules (batch dimensions broadcast, 1-D operands), each operand at its own strides along one plan that the CPU oracle walks too",
      o .. " is copied back and compared with the CPU oracle's recomputed sums under its stated comparison (the policy says which outputs), the semantic authority",
    }
    return with_scalars(out, k, "output")
  elseif k.op.shape == "normalization" then
    local out = {
      string.format("flat: %s %s a row of n elements%s; %s %s", k.inputs[1].param, "is", #k.columns > 0
        and " and each column given is n elements too (NULL: its default)" or "", k.outputs[1].param,
        k.post and "holds one element" or "holds n elements"),
      "the kernel folds each row's reduction stages in order and reads each stage's result before the next",
      "over tensors: rows along one axis at their own strides, columns 1-D along it, along one plan that the CPU oracle walks too",
      k.outputs[1].param .. " is copied back and compared with the CPU oracle's bound, the semantic authority",
    }
    return with_scalars(out, k, "row")
  elseif k.op.shape == "reduction" then
    local outs = {}
    for _, o in ipairs(k.outputs) do outs[#outs + 1] = o.param .. " (" .. o.type.name .. ")" end
    first = string.format("in is a dense %s buffer of n elements; %s hold%s one element%s", k.type.name,
      join(outs), #outs > 1 and "" or "s", #outs > 1 and " each" or "")
  elseif same then
    first = string.format("%s are dense %s buffers of n elements each", join(arrays), k.type.name)
  else
    first = string.format("%s are dense buffers of n elements each (%s)", join(arrays), table.concat(typed, ", "))
  end
  local out = {
    first,
    k.op.shape == "reduction" and "the kernel reads every element of in once"
      or string.format("the kernel indexes %s by the same flat element index", join(arrays)),
    k.op.shape == "reduction"
      and "over tensors: each output folds the elements of the reduced axes along one plan of the input's strides, which the CPU oracle walks too"
      or "over tensors: each array is read or written at its own strides along one plan of the broadcast shape, which the CPU oracle walks too",
    #k.outputs > 1 and "the outputs are copied back and compared with the CPU oracle, the semantic authority"
      or k.outputs[1].param .. " is copied back and compared with the CPU oracle, the semantic authority",
  }
  return with_scalars(out, k, "element")
end

return M
