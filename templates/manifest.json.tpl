@ local function list(items, more, indent)
@   local out = {}
@   for _, s in ipairs(items) do out[#out + 1] = json(s) end
@   for _, s in ipairs(more or {}) do out[#out + 1] = json(s) end
@   return "[" .. table.concat(out, ", ") .. "]"
@ end
@ local function operands(list, outputs)
@   local out = {}
@   for _, x in ipairs(list) do
@     local extra = outputs and (', "compare_rule": ' .. json(x.compare) .. ', "ulp_bound": '
@       .. (x.ulps and ops_format_ulps(x.ulps) or "0") .. ', "abs_tolerance": '
@       .. (x.atol and ops_format_atol(x.atol) or "0")) or (x.default and ', "default": ' .. json(x.default)) or ""
@     out[#out + 1] = '{ "name": ' .. json(x.param) .. ', "type": ' .. json(x.type.name) .. extra .. " }"
@   end
@   return "[" .. table.concat(out, ", ") .. "]"
@ end
{
  "generated_by": $(json(do_not_edit)),
  "catalog": $(json(name)),
  "prefix": $(json(prefix)),
  "platform": $(json(build.platform)),
  "targets": $(list(build.targets)),
  "targets_from": $(json(build.targets_from)),
  "compiler": $(json(build.compiler)),
  "compiler_fingerprint": $(json(build.compiler_fingerprint)),
  "build_fingerprint": $(json(build.build_fingerprint)),
  "build_command": $(json(build.build_command)),
  "kernels": [
@ for i, k in ipairs(kernels) do
    {
      "op": $(json(k.op.name)),
      "scalar_type": $(json(k.label)),
      "signature": $(json(k.signature)),
      "symbol": $(json(k.symbol)),
      "entry_point": $(json(k.entry)),
      "device_entry_point": $(json(k.device_entry)),
      "shape": $(json(k.op.shape)),
      "arity": $(#k.inputs),
      "inputs": $(operands(k.inputs)),
      "scalars": $(operands(k.scalars)),
      "outputs": $(operands(k.outputs, true)),
      "domain": $(json(k.type.domain)),
      "representation": "dense",
      "semantics": $(json(k.op.semantics)),
      "compare_rule": $(json(k.compare)),
      "ulp_bound": $(k.ulp_bound and ops_format_ulps(k.ulp_bound) or 0),
      "abs_tolerance": $(k.abs_tolerance and ops_format_atol(k.abs_tolerance) or 0),
@ if k.op.shape == "reduction" then
      "empty_reduction": $(json(k.has_identity and "identity" or "refused")),
@ end
@ if k.op.shape == "matmul" then
      "b_layout": $(json(k.b_layout)),
      "accumulator": $(json(k.acc.name)),
      "epilogue": $(json(k.epilogue)),
@ end
      "comparison": $(json(k.comparison)),
      "op_file": $(json(k.op.where)),
      "source": $(json("kernels/" .. k.id .. ".hip")),
      "reference": $(json(k.reference or "none")),
      "source_fingerprint": $(json(build.sources[k.id] or "not computed")),
      "targets": $(list(build.targets)),
      "obligations": $(list(contract.obligations(k), k.op.obligations)),
      "required_evidence": $(list(contract.required_evidence)),
      "semantic_degradations": $(list(k.degradations)),
      "non_claims": $(list(contract.non_claims, k.op.non_claims))
    }$(i < #kernels and "," or "")
@ end
  ]
}
