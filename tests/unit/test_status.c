/* Status names and messages come from the one table; unknown values are named as such. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/base.h"

static void names_match_the_enum(void **state)
{
    (void)state;
    assert_string_equal(tkh_status_name(TKH_OK), "TKH_OK");
    assert_string_equal(tkh_status_name(TKH_ERR_EMPTY), "TKH_ERR_EMPTY");
    assert_string_equal(tkh_status_name(TKH_ERR_ORACLE_MISMATCH), "TKH_ERR_ORACLE_MISMATCH");
    assert_string_equal(tkh_status_name((tkh_status)999), "TKH_STATUS_UNKNOWN");
}

static void values_are_fixed(void **state)
{
    (void)state;
    /* Values are ABI: a change here breaks users' stored results. */
    assert_int_equal(TKH_OK, 0);
    assert_int_equal(TKH_ERR_NO_DEVICE, 5);
    assert_int_equal(TKH_ERR_NO_KERNEL_FOR_ARCH, 7);
    assert_int_equal(TKH_ERR_ORACLE_MISMATCH, 13);
    assert_int_equal(TKH_ERR_RUNTIME, 18);
}

static void every_status_has_a_distinct_message(void **state)
{
    (void)state;
    const tkh_status all[] = {
#define TKH_STATUS_ITEM(name, value, text) name,
        TKH_STATUS_MAP(TKH_STATUS_ITEM)
#undef TKH_STATUS_ITEM
    };
    const size_t count = sizeof all / sizeof all[0];
    for (size_t i = 0; i < count; ++i) {
        assert_true(strlen(tkh_status_message(all[i])) > 0);
        assert_string_not_equal(tkh_status_name(all[i]), "TKH_STATUS_UNKNOWN");
        for (size_t j = i + 1; j < count; ++j)
            assert_string_not_equal(tkh_status_message(all[i]), tkh_status_message(all[j]));
    }
    assert_string_equal(tkh_status_message((tkh_status)-3), "unknown status");
}

static void last_error_keeps_the_values(void **state)
{
    (void)state;
    tkhi_clear_error();
    assert_string_equal(tkh_last_error(), "");
    assert_int_equal(tkhi_fail(TKH_ERR_EMPTY, "n is %d", 0), TKH_ERR_EMPTY);
    assert_string_equal(tkh_last_error(), "n is 0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_match_the_enum),
        cmocka_unit_test(values_are_fixed),
        cmocka_unit_test(every_status_has_a_distinct_message),
        cmocka_unit_test(last_error_keeps_the_values),
    };
    return cmocka_run_group_tests_name("status", tests, NULL, NULL);
}
