-- The execution contract every elementwise kernel runs under: what a run must show,
-- what the caller must hold to, and what a passing run does not claim. Kept from the
-- pilot's lowering contract; the registry and the manifest carry it.
local M = {}

M.required_evidence = {
  "admission: the kernel was built for the selected device's architecture",
  "exactness: every output element was compared with the CPU oracle and equal",
  "provenance: kernel source, compiler, build and device fingerprints recorded",
}

M.non_claims = {
  "not machine-code verification: the oracle checks results, not the ISA",
  "not performance evidence: see tokitai-hip bench",
  "no claim about inputs other than the ones compared in this run",
}

function M.obligations(k)
  local operands = k.op.arity == 2 and "lhs, rhs and out" or "in and out"
  return {
    string.format("%s are dense %s buffers of n elements each", operands, k.type.name),
    string.format("the kernel indexes %s by the same flat element index", operands),
    "out is copied back and compared with the CPU oracle, the semantic authority",
  }
end

return M
