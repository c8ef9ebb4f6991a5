-- A fixed build description for the golden test: what CMake would write on a real build.
return {
  platform = "amd",
  targets = { "gfx90a:xnack-", "gfx1030", },
  targets_from = "pinned default",
  compiler = "HIP version: 5.2.21153-0",
  compiler_fingerprint = "sha256:0000000000000000000000000000000000000000000000000000000000000001",
  build_fingerprint = "sha256:0000000000000000000000000000000000000000000000000000000000000002",
  build_command = "hipcc -x hip -O3 --offload-arch=gfx90a:xnack- --offload-arch=gfx1030 -c <kernel>.hip",
  sources = {
    add_i32 = "sha256:00000000000000000000000000000000000000000000000000000000000000a1",
    sum_f32 = "sha256:00000000000000000000000000000000000000000000000000000000000000a2",
  },
}
