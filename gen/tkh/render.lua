-- Renders every artifact in memory, then writes the ones whose content changed.
local template = require "tkh.template"
local errors = require "tkh.errors"
local contract = require "tkh.contract"
local ops_loader = require "tkh.ops"
local types = require "tkh.types"

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

-- Names of one (op, type) kernel: entry points, device symbol, launcher, registry entry.
-- Entry point parameter names, per arity.
local PARAMS = { { "in" }, { "lhs", "rhs" }, { "in0", "in1", "in2" } }
local OPERANDS = { "a", "b", "c" }

local function kernel_names(k, prefix, oracle_dir, platform)
  local id = k.op.name .. "_" .. k.type.name
  local arity = k.op.arity
  return {
    params = table.move(PARAMS[arity], 1, arity, 1, {}),
    operands = table.move(OPERANDS, 1, arity, 1, {}),
    id = id, op = k.op, type = k.type, expr = k.expr, steps = k.steps,
    identity = k.identity, reference = k.reference, compare = k.compare,
    degradations = k.degradations,
    entry = prefix .. "_" .. id,
    device_entry = prefix .. "_" .. id .. "_device",
    oracle = prefix .. "_oracle_" .. id,
    reference_fn = prefix .. "_reference_" .. id,
    -- The ulp rule's bound on the platform built for (registry and manifest only: they are
    -- written once the platform is known), and the larger of the two (every other file).
    ulps = k.ulps and ops_loader.bound(k, platform), ulps_max = k.ulps and ops_loader.bound(k),
    comparison = ops_loader.describe(k, platform),
    oracle_header = oracle_dir .. "/" .. id .. ".h",
    identity_fn = prefix .. "_identity_" .. id,
    symbol = prefix .. "k_" .. id,
    launch = prefix .. "k_" .. id .. "_launch",
    check = prefix .. "i_check_" .. id,
    info = prefix .. "i_kernel_" .. id,
    op_file = file_of(k.op.where),
  }
end

-- The names an op's expressions use, defined around each oracle function only.
local function macro_list(t)
  local m = { { "T", t.compute } }
  if t.domain == "integer" then
    m[#m + 1] = { "U", t.unsigned }
    m[#m + 1] = { "W", t.wide }
    m[#m + 1] = { "TMIN", t.min == "0" and "((T)0)" or t.min }
    m[#m + 1] = { "TMAX", t.max }
    m[#m + 1] = { "BITS", "((W)" .. t.bits .. ")" }
  end
  return m
end

local function macros(t)
  local lines = {}
  for _, m in ipairs(macro_list(t)) do lines[#lines + 1] = "#define " .. m[1] .. " " .. m[2] end
  return table.concat(lines, "\n")
end

local function unmacros(t)
  local lines = {}
  for _, m in ipairs(macro_list(t)) do lines[#lines + 1] = "#undef " .. m[1] end
  return table.concat(lines, "\n")
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
  for _, name in ipairs(types.order) do
    for _, k in ipairs(kernels) do
      if k.type.name == name and not seen_type[name] then
        seen_type[name], types_used[#types_used + 1] = true, k.type
      end
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
    ops_format_ulps = ops_loader.format_ulps, reduce_block = 256,
    guard = (opts.prefix .. "_" .. opts.name):upper(),
    kernels = kernels, units = units, ops = ops, op_files = table.concat(op_files, ", "),
    generator = GENERATOR, cstr = cstr, json = json, contract = contract,
    build = build_info or unknown_build_info(),
  }
  local files = {}
  local function emit(tpl, path, extra)
    local values = setmetatable(extra or {}, { __index = common })
    values.template = "templates/" .. tpl
    values.do_not_edit = string.format("DO NOT EDIT: generated by %s from %s and %s",
      GENERATOR, values.template, values.op_file or common.op_files)
    local text = template.render_file(opts.templates .. "/" .. tpl, values.template, values)
    files[#files + 1] = { path = path, content = text }
  end

  emit("oracle_all.h.tpl", inc .. opts.name .. "_oracle.h")
  emit("compare.h.tpl", inc .. opts.name .. "_compare.h")
  emit("ops.h.tpl", inc .. opts.name .. "_ops.h")
  for _, k in ipairs(kernels) do
    local shape = k.op.shape
    emit("oracle.h.tpl", "include/" .. k.oracle_header, { k = k, op_file = k.op_file })
    emit(shape .. ".hip.tpl", "kernels/" .. k.id .. ".hip", { k = k, op_file = k.op_file })
    emit(shape .. ".c.tpl", "stubs/" .. k.id .. ".c", { k = k, op_file = k.op_file })
  end
  for _, unit in ipairs(common.units) do
    emit("unit.hip.tpl", "units/" .. unit.name .. ".hip", { unit = unit })
  end
  emit("oracle_tests.c.tpl", "tests/oracle_tests.c")
  emit("selftest.c.tpl", "tests/selftest.c")
  emit("generated.cmake.tpl", "generated.cmake")
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
