# $(do_not_edit)
# What the generator wrote, for CMake to compile. Paths are relative to this folder.
set(TKH_GENERATED_KERNELS
@ for _, k in ipairs(kernels) do
  $(k.id)
@ end
)
set(TKH_GENERATED_REGISTRY "$(name)_registry.c")
set(TKH_GENERATED_HEADERS "include/$(ops_header)" "include/$(oracle_header)" "include/$(compare_header)")
set(TKH_GENERATED_ORACLE_TESTS "tests/oracle_tests.c")
