-- tkhgen: renders TokitaiHip's templates for the ops in one or more op files.
-- CMake runs it at configure time; it also runs by hand:
--   lua5.4 gen/tkhgen.lua --out build/generated ops/core.lua
-- Run with --help for the options. Nothing is written unless every op file validates
-- and every template renders; a file is rewritten only when its content changes.
local script_dir = (arg and arg[0] or ""):match("^(.*)[/\\]") or "."
package.path = script_dir .. "/?.lua;" .. package.path

local errors = require "tkh.errors"
local ops_loader = require "tkh.ops"
local render = require "tkh.render"
local sandbox = require "tkh.sandbox"

local USAGE = [[
usage: lua5.4 tkhgen.lua --out DIR [options] OPFILE...
  --out DIR           where generated files go (created if missing)
  --name NAME         catalog name: registry, header and manifest names (default: core)
  --prefix PREFIX     C symbol prefix of the entry points (default: tkh)
  --include-dir DIR   folder of the generated headers under DIR/include (default: tokitai_hip)
  --types LIST        comma-separated scalar types to generate (default: all the ops list)
  --ops LIST          comma-separated op names to generate (default: all)
  --phase PHASE       'sources': kernels, stubs, headers and generated.cmake only;
                      'all' (default): also the registry and manifest.json
  --build-info FILE   Lua table of targets and fingerprints from the build (phase all)
  --templates DIR     template folder (default: the one beside gen/)
  --runtime-tables    also write the runtime's own tables from the generator's lists:
                      include/tokitai_hip/shape_kinds.h (the shapes) and
                      runtime/scalar_types.c (the scalar types, from tkh/types.lua),
                      which generated.cmake lists; the core catalog's build does]]

local function parse_args(argv)
  local opts = { name = "core", prefix = "tkh", include_dir = "tokitai_hip", phase = "all",
                 templates = script_dir .. "/../templates", op_files = {} }
  local valued = { ["--out"] = "out", ["--name"] = "name", ["--prefix"] = "prefix",
                   ["--include-dir"] = "include_dir", ["--types"] = "types", ["--ops"] = "ops",
                   ["--phase"] = "phase", ["--build-info"] = "build_info",
                   ["--templates"] = "templates" }
  local i = 1
  while i <= #argv do
    local a = argv[i]
    if a == "--help" or a == "-h" then
      print(USAGE)
      os.exit(0)
    elseif a == "--runtime-tables" then
      opts.runtime_tables = true
    elseif valued[a] then
      if argv[i + 1] == nil then errors.raise("option %s needs a value", a) end
      opts[valued[a]] = argv[i + 1]
      i = i + 1
    elseif a:sub(1, 2) == "--" then
      errors.raise("unknown option '%s' (see --help)", a)
    else
      opts.op_files[#opts.op_files + 1] = a
    end
    i = i + 1
  end
  if not opts.out then errors.raise("--out DIR is required (see --help)") end
  if #opts.op_files == 0 then errors.raise("no op file given (see --help)") end
  if opts.phase ~= "sources" and opts.phase ~= "all" then
    errors.raise("--phase must be 'sources' or 'all', got '%s'", opts.phase)
  end
  for _, key in ipairs { "name", "prefix" } do
    if not ops_loader.is_identifier(opts[key]) then
      errors.raise("--%s '%s' is not a lower-case C identifier ([a-z][a-z0-9_]*)", key, opts[key])
    end
  end
  if not opts.include_dir:match("^[%w_][%w_/.-]*$") or opts.include_dir:match("%.%.") then
    errors.raise("--include-dir '%s' must be a relative folder name", opts.include_dir)
  end
  opts.filter = {}
  for _, key in ipairs { "types", "ops" } do
    if opts[key] and opts[key] ~= "all" then
      local set, n = {}, 0
      for t in opts[key]:gmatch("[^,;%s]+") do set[t], n = true, n + 1 end
      if n == 0 then errors.raise("--%s '%s' names nothing", key, opts[key]) end
      opts.filter[key] = set
    end
  end
  return opts
end

local function load_build_info(path)
  if not path then return nil end
  local f, err = io.open(path, "rb")
  if not f then errors.raise("%s", err) end
  local text = f:read("a")
  f:close()
  local chunk, cerr = load(text, "@" .. path, "t", {})
  if not chunk then errors.raise("%s", errors.located(cerr, path)) end
  local ok, info = pcall(sandbox.run, "build-info table", path, nil, chunk)
  if not ok then errors.rethrow(info) end
  if type(info) ~= "table" then errors.raise("%s: must return a table, got %s", path, type(info)) end
  return info
end

local function main(argv)
  local opts = parse_args(argv)
  local ops = ops_loader.load(opts.op_files, opts.filter)
  -- A name in a filter that matches nothing is a typo, not a wish for an empty catalog.
  local known = { types = {}, ops = {} }
  for _, op in ipairs(ops) do
    known.ops[op.name] = true
    for name in pairs(op.bound_types or {}) do known.types[name] = true end
  end
  for _, key in ipairs { "ops", "types" } do -- in a fixed order: one run names what the next would
    local names = {}
    for name in pairs(opts.filter[key] or {}) do names[#names + 1] = name end
    table.sort(names)
    for _, name in ipairs(names) do
      if not known[key][name] then
        errors.raise("--%s: '%s' matches no %s in the op files", key, name,
          key == "ops" and "op" or "type an op is declared for")
      end
    end
  end
  local files = render.all(ops, opts, load_build_info(opts.build_info))
  local changed = render.write(opts.out, files)
  io.stderr:write(string.format("tkhgen: %d files, %d rewritten, in %s\n",
    #files, changed, opts.out))
end

local ok, err = xpcall(main, function(e)
  if errors.is_user_error(e) then return e end
  return debug.traceback(tostring(e), 2)
end, arg)
if not ok then
  io.stderr:write("tkhgen: ", tostring(err), "\n")
  os.exit(1)
end
