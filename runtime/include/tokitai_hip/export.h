/* Export, visibility and code-generation marks for the TokitaiHip runtime, in one place.
 * TKH_BUILDING_LIBRARY: set while building the library (shared or static).
 * TKH_STATIC: set by users of the static library (the CMake target does it). */
#ifndef TOKITAI_HIP_EXPORT_H
#define TOKITAI_HIP_EXPORT_H

#if defined(TKH_BUILDING_LIBRARY) && defined(TKH_STATIC)
#error "TKH_BUILDING_LIBRARY and TKH_STATIC are both defined: build one library kind at a time"
#endif

#if defined(TKH_BUILDING_LIBRARY) && defined(__GNUC__)
#define TKH_API __attribute__((visibility("default")))
#else
#define TKH_API
#endif

/* Symbols shared between the runtime's own objects (generated kernels, stubs and the
 * registry) that must not leave the library. */
#if defined(__GNUC__)
#define TKH_HIDDEN __attribute__((visibility("hidden")))
#else
#define TKH_HIDDEN
#endif

/* The generated CPU checks' hot loops. With TKH_HOST_CLONES (CMake option
 * TOKITAI_HIP_HOST_CLONES, GCC) each is compiled for x86-64-v4 (AVX-512) and v3 (AVX2)
 * beside the build's baseline, and the dynamic loader picks the best for the CPU. Every
 * clone computes the same values: IEEE operations only, and -ffp-contract=off keeps FMA
 * out. For static functions only: GCC exports the resolver of any other. */
#if defined(TKH_HOST_CLONES)
#define TKH_CHECK_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define TKH_CHECK_CLONES
#endif

#endif
