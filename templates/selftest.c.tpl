/* $(do_not_edit) */
/* GPU test of the '$(name)' catalog: every kernel, oracle-checked at sizes 1, 3, 255, 256,
 * 257 and 2^20 + 3 on random inputs with edge values (tkh_registry_selftest), from a fixed
 * seed that TKH_TEST_SEED replaces. Exits 77, which ctest shows as skipped, when there is
 * no device. */
#include <stdio.h>
#include <stdlib.h>

#include "$(ops_header)"

int main(void)
{
    tkh_device_report device;
    tkh_status st = tkh_device_query(TKH_DEVICE_FROM_ENV, &device);
    if (st == TKH_ERR_NO_DEVICE) {
        printf("SKIP: %s\n", device.reason);
        return 77;
    }
    const char *env = getenv("TKH_TEST_SEED");
    unsigned long long seed = env ? strtoull(env, NULL, 0) : 20261201ull; /* fixed: the same verdict on every run */
    /* Printed before the run, so that a crash or a hang still leaves the seed to replay. */
    printf("$(name) on %s (%s), seed %llu (replay with TKH_TEST_SEED=%llu)\n", device.name,
        device.arch, seed, seed);
    fflush(stdout);
    tkh_context *ctx = NULL;
    st = tkh_context_create(&ctx, TKH_DEVICE_FROM_ENV);
    if (st != TKH_OK) {
        printf("FAIL: %s: %s\n", tkh_status_name(st), tkh_last_error());
        return 1;
    }
    const size_t sizes[] = { 1, 3, 255, 256, 257, ((size_t)1 << 20) + 3 };
    tkh_selftest_result result;
    st = tkh_registry_selftest(ctx, $(prefix)_registry_$(name)(), sizes, sizeof sizes / sizeof sizes[0],
        seed, &result);
    printf("%zu of %zu runs passed\n", result.passed, result.runs);
    if (st != TKH_OK)
        printf("FAIL: %s\n", result.failure);
    tkh_context_destroy(ctx);
    return st == TKH_OK ? 0 : 1;
}
