/* Registry lookup and admission rules, on the generated core registry and on kernel
 * descriptions made here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tokitai_hip/tokitai_hip.h"

static void core_registry_lists_add_i32(void **state)
{
    (void)state;
    const tkh_registry *reg = tkh_registry_core();
    assert_string_equal(reg->name, "core");
    const tkh_kernel_info *k = tkh_registry_find(reg, "add", "i32");
    assert_non_null(k);
    assert_string_equal(k->symbol, "tkhk_add_i32");
    assert_int_equal(k->arity, 2);
    assert_int_equal(k->inputs[0].size, 4);
    assert_int_equal(k->outputs[0].size, 4);
    assert_string_equal(k->signature, "i32 lhs, i32 rhs -> i32 out");
    assert_non_null(k->targets[0]);
    assert_memory_equal(k->source_fingerprint, "sha256:", 7);
    assert_int_equal(strlen(k->source_fingerprint), 7 + 64);
    assert_memory_equal(k->compiler_fingerprint, "sha256:", 7);
    assert_non_null(k->launch);
    assert_non_null(k->check);
}

static void find_misses_cleanly(void **state)
{
    (void)state;
    const tkh_registry *reg = tkh_registry_core();
    assert_null(tkh_registry_find(reg, "add", "i33"));
    assert_null(tkh_registry_find(reg, "matmul", "i32"));
    assert_null(tkh_registry_find(reg, NULL, "i32"));
    assert_null(tkh_registry_find(reg, "add", NULL));
    assert_null(tkh_registry_find(NULL, "add", "i32"));
}

static const char *const amd_targets[] = { "gfx90a:xnack-", "gfx1030", NULL };
static const char *const nvidia_targets[] = { "sm_80", "sm_90", NULL };

static tkh_kernel_info fake(const char *const *targets)
{
    tkh_kernel_info k;
    memset(&k, 0, sizeof k);
    k.op = "add";
    k.type = "i32";
    k.platform = "test";
    k.targets = targets;
    return k;
}

static void admission_on_amd(void **state)
{
    (void)state;
    tkh_kernel_info k = fake(amd_targets);
    assert_int_equal(tkh_kernel_admit(&k, "gfx90a:sramecc+:xnack-"), TKH_OK);
    assert_int_equal(tkh_kernel_admit(&k, "gfx90a"), TKH_OK);
    assert_int_equal(tkh_kernel_admit(&k, "gfx1030"), TKH_OK);
    assert_int_equal(tkh_kernel_admit(&k, "gfx90a:sramecc+:xnack+"), TKH_ERR_NO_KERNEL_FOR_ARCH);
    assert_int_equal(tkh_kernel_admit(&k, "gfx1100"), TKH_ERR_NO_KERNEL_FOR_ARCH);
    assert_int_equal(tkh_kernel_admit(&k, "gfx103"), TKH_ERR_NO_KERNEL_FOR_ARCH);
    assert_int_equal(tkh_kernel_admit(&k, "gfx10300"), TKH_ERR_NO_KERNEL_FOR_ARCH);
    assert_string_equal(tkh_last_error(),
        "kernel add_i32 (test) was built for [gfx90a:xnack-, gfx1030] but the device is "
        "gfx10300: rebuild with GPU_TARGETS including it");
}

static void admission_on_nvidia(void **state)
{
    (void)state;
    tkh_kernel_info k = fake(nvidia_targets);
    assert_int_equal(tkh_kernel_admit(&k, "sm_90"), TKH_OK);
    assert_int_equal(tkh_kernel_admit(&k, "sm_80"), TKH_OK);
    assert_int_equal(tkh_kernel_admit(&k, "sm_86"), TKH_ERR_NO_KERNEL_FOR_ARCH);
    assert_int_equal(tkh_kernel_admit(&k, "sm_9"), TKH_ERR_NO_KERNEL_FOR_ARCH);
    assert_int_equal(tkh_kernel_admit(&k, "sm_900"), TKH_ERR_NO_KERNEL_FOR_ARCH);
    /* sm_90a: the H100's and H200's own code, on no other chip */
    static const char *const specific[] = { "sm_80", "sm_90a", NULL };
    k = fake(specific);
    assert_int_equal(tkh_kernel_admit(&k, "sm_90"), TKH_OK);
    assert_int_equal(tkh_kernel_admit(&k, "sm_80"), TKH_OK);
    assert_int_equal(tkh_kernel_admit(&k, "sm_100"), TKH_ERR_NO_KERNEL_FOR_ARCH);
    assert_int_equal(tkh_kernel_admit(&k, "sm_9"), TKH_ERR_NO_KERNEL_FOR_ARCH);
    assert_int_equal(tkh_kernel_admit(&k, "sm_90a"), TKH_OK); /* a target admits its own name */
    assert_int_equal(tkh_kernel_admit(&k, "sm_89"), TKH_ERR_NO_KERNEL_FOR_ARCH);
    assert_string_equal(tkh_last_error(), "kernel add_i32 (test) was built for [sm_80, sm_90a] but the device is "
        "sm_89: rebuild with GPU_TARGETS including it");
}

static void admission_needs_arguments(void **state)
{
    (void)state;
    tkh_kernel_info k = fake(amd_targets);
    assert_int_equal(tkh_kernel_admit(NULL, "gfx90a"), TKH_ERR_NULL_POINTER);
    assert_int_equal(tkh_kernel_admit(&k, NULL), TKH_ERR_NULL_POINTER);
    assert_string_equal(tkh_last_error(), "tkh_kernel_admit: arch is NULL");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(core_registry_lists_add_i32),
        cmocka_unit_test(find_misses_cleanly),
        cmocka_unit_test(admission_on_amd),
        cmocka_unit_test(admission_on_nvidia),
        cmocka_unit_test(admission_needs_arguments),
    };
    return cmocka_run_group_tests_name("registry", tests, NULL, NULL);
}
