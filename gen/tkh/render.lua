-- Renders every artifact in memory, then writes the ones whose content changed.
local template = require "tkh.template"
local errors = require "tkh.errors"
local contract = require "tkh.contract"
local ops_loader = require "tkh.ops"
local types = require "tkh.types"
local expr = require "tkh.expr"
local functions = require "tkh.functions"
local matmul = require "tkh.shapes.matmul"

-- The shapes whose kernel source is several templates (gen/tkh/shapes/*.lua).
local kernel_templates = { matmul = matmul.kernel_templates }

local M = {}

local GENERATOR = "gen/tkhgen.lua"

-- A C string literal for any text (op semantics, fingerprints, paths).
local function cstr(s)
  return '"' .. tostring(s):gsub('[\\"]', "\\%0"):gsub("[%c\127-\255]", function(c)
    return string.format("\\%03o", c:byte())
  end) .. '"'
end

-- A JSON string; control characters are escaped, never left raw.
local function json(s)
  return '"' .. tostring(s):gsub('[\\"]', "\\%0"):gsub("%c", function(c)
    return string.format("\\u%04x", c:byte())
  end) .. '"'
end

local function file_of(where)
  return (where:gsub(":%d+$", ""))
end

-- Names of one kernel: entry points, device symbol, launcher, registry entry, and per
-- operand its C types and names. A single output's function is the oracle's name; each
-- of several is named after its output.
local function kernel_names(k, prefix, oracle_dir, platform)
  local id = k.op.name .. "_" .. k.label
  local n = {
    id = id, label = k.label, op = k.op, type = k.type, steps = k.steps, binding = k.binding,
    identity = k.identity, has_identity = k.has_identity, degradations = k.degradations, acc = k.acc, out_type = k.out_type,
    map = k.map, post = k.post, bounded_post = k.bounded_post, index = k.index, better = k.better,
    args = k.args, inputs = k.inputs, scalars = k.scalars, outputs = {},
    columns = k.columns, extras = k.extras, stages = k.stages, map_tree = k.map_tree, post_tree = k.post_tree, reuse = k.reuse,
    b_layout = k.b_layout, epilogue = k.epilogue, epilogue_tree = k.epilogue_tree, projectable = k.projectable,
    entry = prefix .. "_" .. id,
    device_entry = prefix .. "_" .. id .. "_device",
    tensor_entry = prefix .. "_" .. id .. "_tensor",
    oracle = prefix .. "_oracle_" .. id,
    oracle_header = oracle_dir .. "/" .. id .. ".h",
    identity_fn = prefix .. "_identity_" .. id,
    map_fn = prefix .. "_map_" .. id,
    pick = prefix .. "_pick_" .. id,
    better_fn = prefix .. "_better_" .. id,
    step_fn = prefix .. "_step_" .. id,
    post_fn = prefix .. "_post_" .. id,
    symbol = prefix .. "k_" .. id,
    launch = prefix .. "k_" .. id .. "_launch",
    check = prefix .. "i_check_" .. id,
    info = prefix .. "i_kernel_" .. id,
    op_file = file_of(k.op.where),
  }
  local rules, seen_rule, texts, bound = {}, {}, {}, nil
  for i, o in ipairs(k.outputs) do
    local suffix = #k.outputs > 1 and "_" .. o.name or ""
    local out = {
      name = o.name, type = o.type, param = o.param, expr = o.expr, compare = o.compare,
      reference = o.reference, index = i - 1,
      fn = n.oracle .. suffix, reference_fn = prefix .. "_reference_" .. id .. suffix,
      -- The ulp rule's bound on the platform built for (registry and manifest only: they
      -- are written once the platform is known), and the larger of the two (every other file).
      ulps = o.ulps and ops_loader.bound(o, platform), ulps_max = o.ulps and ops_loader.bound(o),
      atol = o.atol,
      comparison = ops_loader.describe(o, platform),
    }
    n.outputs[i] = out
    if not seen_rule[o.compare] then seen_rule[o.compare], rules[#rules + 1] = true, o.compare end
    texts[#texts + 1] = (#k.outputs > 1 and o.name .. ": " or "") .. out.comparison
    if out.ulps then bound = math.max(bound or 0, out.ulps) end
    if out.atol then n.abs_tolerance = math.max(n.abs_tolerance or 0, out.atol) end
  end
  -- The kernel's rule: its outputs' ("exact", "ulp", or "exact,ulp" where they differ).
  n.compare, n.ulp_bound, n.comparison = table.concat(rules, ","), bound, table.concat(texts, "; ")
  n.reference = n.outputs[1].reference
  -- The entry points' parameters, in declared order: arrays as pointers, scalars by value.
  local params = {}
  for _, a in ipairs(k.args) do
    params[#params + 1] = a.scalar and (a.type.c .. " " .. a.param) or ("const " .. a.type.c .. " *" .. a.param)
  end
  for _, o in ipairs(k.outputs) do params[#params + 1] = o.type.c .. " *" .. o.param end
  n.entry_params = table.concat(params, ", ")
  -- The tensor entry point's: arrays as DLTensors.
  local tensor_params = {}
  for _, a in ipairs(k.args) do
    tensor_params[#tensor_params + 1] = a.scalar and (a.type.c .. " " .. a.param) or ("const DLTensor *" .. a.param)
  end
  for _, o in ipairs(k.outputs) do tensor_params[#tensor_params + 1] = "const DLTensor *" .. o.param end
  n.tensor_params = table.concat(tensor_params, ", ")
  -- Elements per thread and step on aligned arrays: 16 bytes of the widest.
  local widest = 1
  for _, x in ipairs(k.inputs) do widest = math.max(widest, x.type.bits // 8) end
  for _, x in ipairs(k.outputs) do widest = math.max(widest, x.type.bits // 8) end
  n.vector_width = 16 // widest
  for i, a in ipairs(k.inputs) do a.index = i - 1 end
  for i, a in ipairs(k.scalars) do a.index = i - 1 end
  -- The C signature, as the registry and reports show it: "f32 x, scalar f32 alpha -> f32 out".
  local ins, outs = {}, {}
  for _, a in ipairs(k.args) do ins[#ins + 1] = (a.scalar and "scalar " or "") .. a.type.name .. " " .. a.param end
  for _, o in ipairs(k.outputs) do outs[#outs + 1] = o.type.name .. " " .. o.param end
  n.signature = table.concat(ins, ", ") .. " -> " .. table.concat(outs, ", ")
  return n
end

-- The names an op's expressions use, defined around each oracle function only: each
-- placeholder as its type's compute type (or, with 'wide', the ulp rule's reference
-- type for floats), and for an integer T its limits.
local function macro_list(k, wide)
  local m = {}
  local names = {}
  for name in pairs(k.binding) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local t = types.by_name[k.binding[name]]
    m[#m + 1] = { name, wide and t.reference or t.compute }
  end
  if k.acc then -- a reduction's accumulator and output types
    m[#m + 1] = { "ACC", wide and k.acc.reference or k.acc.compute }
    m[#m + 1] = { "OUT", wide and k.out_type.reference or k.out_type.compute }
  end
  local t = k.binding.T and types.by_name[k.binding.T]
  if t and t.domain == "integer" then
    m[#m + 1] = { "U", t.unsigned }
    m[#m + 1] = { "W", t.wide }
    m[#m + 1] = { "TMIN", t.min == "0" and "((T)0)" or t.min }
    m[#m + 1] = { "TMAX", t.max }
    m[#m + 1] = { "BITS", "((W)" .. t.bits .. ")" }
  end
  return m
end

local function macros(k, wide)
  local lines = {}
  for _, m in ipairs(macro_list(k, wide)) do lines[#lines + 1] = "#define " .. m[1] .. " " .. m[2] end
  return table.concat(lines, "\n")
end

local function unmacros(k)
  local lines = {}
  for _, m in ipairs(macro_list(k)) do lines[#lines + 1] = "#undef " .. m[1] end
  return table.concat(lines, "\n")
end

-- A type's edge values as C expressions of its own, without the macros T, TMIN, TMAX
-- and BITS (an op's arguments may be of several types).
local function edge_list(t)
  local out = {}
  if t.domain ~= "integer" then return table.concat(t.edges, ", ") end
  for i, e in ipairs(t.edges) do
    out[i] = e:gsub("%f[%w_]TMIN%f[^%w_]", "(" .. t.c .. ")" .. t.min)
      :gsub("%f[%w_]TMAX%f[^%w_]", "(" .. t.c .. ")" .. t.max)
      :gsub("%f[%w_]BITS%f[^%w_]", tostring(t.bits))
      :gsub("%f[%w_]T%f[^%w_]", t.c)
  end
  return table.concat(out, ", ")
end

-- A reduction's accumulator acc folded with element v (in the compute type) at index i,
-- elements coming in index order: the map and the combine, or an index-aware
-- reduction's step (templates/reduction.hip.tpl and reduction.c.tpl).
local function fold_element(k, acc, v, i)
  if k.index then return k.step_fn .. "(" .. acc .. ", " .. v .. ", (int64_t)(" .. i .. "))" end
  return k.oracle .. "(" .. acc .. ", " .. k.map_fn .. "(" .. v .. "))"
end

-- C expressions converting between the memory type and the compute type.
local function load(t, e) return t.load and (t.load .. "(" .. e .. ")") or e end
local function store(t, e) return t.store and (t.store .. "(" .. e .. ")") or e end

local function unknown_build_info()
  local note = "not computed (generator run outside CMake)"
  return { platform = "unknown", compiler = note, compiler_fingerprint = note,
           build_fingerprint = note, build_command = note, targets = {},
           targets_from = note, sources = {} }
end

-- A normalization's expression (its parsed tree) as C of its error-bound pair
-- (tokitai_hip/codegen/error_bound.h, gen/tkh/expr.lua): every name is a pair e_<name>, C's
-- constants exact, literals as the compute type holds them, library functions within the
-- larger of both platforms' documented bounds (a stub is generated before the platform is
-- known, and must not change when it is).
local function bound_c(k, tree, text)
  local env = {
    name = function(n)
      if n:match("^[A-Z][A-Z0-9_]*$") then return "tkh_eb_exact((long double)" .. n .. ")" end
      return "e_" .. n
    end,
    exact = function() return true end, -- validated when the op file loaded (gen/tkh/shapes/normalization.lua)
    ulps = function(f) return functions.ulps(f, nil, k.acc.bits) end,
    literal = function(t) return "(" .. k.acc.compute .. ")" .. t end,
  }
  return expr.bound_c(tree, text, env)
end

function M.all(ops, opts, build_info)
  local kernels, op_files, seen_file = {}, {}, {}
  for _, op in ipairs(ops) do
    for _, k in ipairs(op.kernels) do
      kernels[#kernels + 1] = kernel_names(k, opts.prefix, opts.include_dir .. "/" .. opts.name .. "_oracle",
        build_info and build_info.platform)
    end
    local f = file_of(op.where)
    if not seen_file[f] then seen_file[f], op_files[#op_files + 1] = true, f end
  end
  if #kernels == 0 then errors.raise("no kernel to generate: the op files declare none") end

  local types_used, seen_type = {}, {}
  local used = {}
  for _, k in ipairs(kernels) do
    for _, x in ipairs(k.args) do used[x.type.name] = true end
    for _, x in ipairs(k.outputs) do used[x.type.name] = true end
    if k.acc then used[k.acc.name] = true end
  end
  for _, name in ipairs(types.order) do
    if used[name] and not seen_type[name] then
      seen_type[name], types_used[#types_used + 1] = true, types.by_name[name]
    end
  end

  -- Compile units: the kernels of one op together (templates/unit.hip.tpl).
  local units, unit_of = {}, {}
  for _, k in ipairs(kernels) do
    local u = unit_of[k.op.name]
    if not u then
      u = { name = k.op.name, kernels = {} }
      unit_of[k.op.name], units[#units + 1] = u, u
    end
    u.kernels[#u.kernels + 1] = k
  end

  local inc = "include/" .. opts.include_dir .. "/"
  local common = {
    prefix = opts.prefix, name = opts.name, include_dir = opts.include_dir,
    ops_header = opts.include_dir .. "/" .. opts.name .. "_ops.h",
    oracle_header = opts.include_dir .. "/" .. opts.name .. "_oracle.h",
    compare_header = opts.include_dir .. "/" .. opts.name .. "_compare.h",
    types_used = types_used, macros = macros, unmacros = unmacros, load = load, store = store,
    edge_list = edge_list, fold_element = fold_element,
    ops_format_ulps = ops_loader.format_ulps, ops_format_atol = ops_loader.format_atol, reduce_block = 256,
    bound_c = bound_c, matmul_locals = matmul.template_locals,
    guard = (opts.prefix .. "_" .. opts.name):upper(),
    kernels = kernels, units = units, ops = ops, op_files = table.concat(op_files, ", "),
    generator = GENERATOR, cstr = cstr, json = json, contract = contract,
    runtime_tables = opts.runtime_tables or false,
    build = build_info or unknown_build_info(),
  }
  local files = {}
  -- One file from a template, or from several one after another (a list; same values).
  local function emit(tpl, path, extra)
    local parts = type(tpl) == "table" and tpl or { tpl }
    local values = setmetatable(extra or {}, { __index = common })
    local names, text = {}, {}
    for i, part in ipairs(parts) do names[i] = "templates/" .. part end
    values.do_not_edit = string.format("DO NOT EDIT: generated by %s from %s and %s",
      GENERATOR, table.concat(names, ", "), values.op_file or common.op_files)
    for i, part in ipairs(parts) do
      text[i] = template.render_file(opts.templates .. "/" .. part, names[i], values)
    end
    files[#files + 1] = { path = path, content = table.concat(text) }
  end

  emit("oracle_all.h.tpl", inc .. opts.name .. "_oracle.h")
  emit("compare.h.tpl", inc .. opts.name .. "_compare.h")
  emit("ops.h.tpl", inc .. opts.name .. "_ops.h")
  for _, k in ipairs(kernels) do
    local shape = k.op.shape
    emit("oracle.h.tpl", "include/" .. k.oracle_header, { k = k, op_file = k.op_file })
    emit(kernel_templates[shape] or shape .. ".hip.tpl", "kernels/" .. k.id .. ".hip", { k = k, op_file = k.op_file })
    emit(shape .. ".c.tpl", "stubs/" .. k.id .. ".c", { k = k, op_file = k.op_file })
  end
  for _, unit in ipairs(common.units) do
    emit("unit.hip.tpl", "units/" .. unit.name .. ".hip", { unit = unit })
  end
  emit("oracle_tests.c.tpl", "tests/oracle_tests.c")
  emit("selftest.c.tpl", "tests/selftest.c")
  emit("generated.cmake.tpl", "generated.cmake")
  if opts.runtime_tables then
    emit("shape_kinds.h.tpl", "include/tokitai_hip/shape_kinds.h",
      { shapes = ops_loader.SHAPE_ORDER, op_file = "gen/tkh/ops.lua" })
    local rows = {}
    for i, name in ipairs(types.order) do rows[i] = types.by_name[name] end
    emit("scalar_types.c.tpl", "runtime/scalar_types.c", { rows = rows, op_file = "gen/tkh/types.lua" })
  end
  if opts.phase == "all" then
    emit("registry.c.tpl", opts.name .. "_registry.c")
    emit("manifest.json.tpl", "manifest.json")
  end
  return files
end

local function read(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local text = f:read("a")
  f:close()
  return text
end

local function ensure_dir(path)
  local dir = path:match("^(.*)/[^/]*$")
  local probe = dir and dir ~= "" and io.open(dir .. "/.", "r")
  if probe then probe:close() end
  if dir and dir ~= "" and not probe then
    local quoted = "'" .. dir:gsub("'", "'\\''") .. "'"
    if not os.execute("mkdir -p " .. quoted) then errors.raise("cannot create folder %s", dir) end
  end
end

-- Writes through a temporary file and a rename, so a reader never sees half a file.
function M.write(out_dir, files)
  local changed = 0
  for _, f in ipairs(files) do
    local path = out_dir .. "/" .. f.path
    if read(path) ~= f.content then
      ensure_dir(path)
      local tmp = path .. ".tmp"
      local h, err = io.open(tmp, "wb")
      if not h then errors.raise("cannot write %s: %s", tmp, err) end
      local ok, werr = h:write(f.content)
      local closed, cerr = h:close() -- a full disk may only show when the buffer is flushed
      if not (ok and closed) then os.remove(tmp); errors.raise("cannot write %s: %s", tmp, werr or cerr) end
      local renamed, rerr = os.rename(tmp, path)
      if not renamed then os.remove(tmp); errors.raise("cannot replace %s: %s", path, rerr) end
      changed = changed + 1
    end
  end
  return changed
end

return M
