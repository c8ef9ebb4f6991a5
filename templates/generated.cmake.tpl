# $(do_not_edit)
# What the generator wrote, for CMake to compile. Paths are relative to this folder.
set(TKH_GENERATED_KERNELS
@ for _, k in ipairs(kernels) do
  $(k.id)
@ end
)
# Compile units (units/<unit>.hip), one per op, and the kernels each includes.
set(TKH_GENERATED_UNITS
@ for _, u in ipairs(units) do
  $(u.name)
@ end
)
@ for _, u in ipairs(units) do
@   local ids = {}
@   for i, k in ipairs(u.kernels) do ids[i] = k.id end
set(TKH_GENERATED_UNIT_$(u.name) $(table.concat(ids, " ")))
@ end
set(TKH_GENERATED_REGISTRY "$(name)_registry.c")
set(TKH_GENERATED_ORACLE_TESTS "tests/oracle_tests.c")
set(TKH_GENERATED_GPU_TESTS "tests/selftest.c")
# Each kernel's scalar definition: include/<this folder>/<kernel>.h
set(TKH_GENERATED_ORACLE_DIR "include/$(include_dir)/$(name)_oracle")
@ if runtime_tables then
# The runtime's own sources (--runtime-tables): compiled into the runtime library, once.
set(TKH_GENERATED_RUNTIME_SOURCES "runtime/scalar_types.c")
@ end
