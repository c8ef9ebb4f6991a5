/* Reports: JSON parses and carries the fields; Markdown has them; buffers behave like
 * snprintf. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "tokitai_hip/tokitai_hip.h"

static tkh_report sample(void)
{
    tkh_report r;
    memset(&r, 0, sizeof r);
    r.status = TKH_ERR_ORACLE_MISMATCH;
    snprintf(r.message, sizeof r.message, "element 3 differs: \"quoted\"\tand | piped\n");
    r.kernel = tkh_registry_find(tkh_registry_core(), "add", "i32");
    snprintf(r.device.platform, sizeof r.device.platform, "amd");
    snprintf(r.device.name, sizeof r.device.name, "Test GPU");
    snprintf(r.device.arch, sizeof r.device.arch, "gfx90a:sramecc+:xnack-");
    r.len = 1024;
    r.oracle_checked = 1;
    r.oracle_matches = 0;
    r.first_mismatch = 3;
    r.launch_grid = 4;
    r.launch_block = 256;
    r.seconds = NAN;
    r.evidence_count = 2;
    snprintf(r.evidence[0], sizeof r.evidence[0], "first step");
    snprintf(r.evidence[1], sizeof r.evidence[1], "second step");
    return r;
}

static void json_is_valid_and_complete(void **state)
{
    (void)state;
    tkh_report r = sample();
    char buf[16384];
    size_t needed = 0;
    assert_int_equal(tkh_report_to_json(&r, buf, sizeof buf, &needed), TKH_OK);
    assert_int_equal(needed, strlen(buf));
    json_error_t err;
    json_t *root = json_loads(buf, 0, &err);
    if (root == NULL)
        fail_msg("invalid JSON at line %d: %s\n%s", err.line, err.text, buf);
    assert_string_equal(json_string_value(json_object_get(root, "backend")), "tokitai_hip/amd");
    assert_string_equal(json_string_value(json_object_get(root, "status")), "TKH_ERR_ORACLE_MISMATCH");
    assert_string_equal(json_string_value(json_object_get(root, "message")), r.message);
    assert_string_equal(json_string_value(json_object_get(root, "op")), "add");
    assert_string_equal(json_string_value(json_object_get(root, "scalar_type")), "i32");
    assert_int_equal(json_integer_value(json_object_get(root, "len")), 1024);
    assert_true(json_is_true(json_object_get(root, "cpu_oracle_checked")));
    assert_true(json_is_false(json_object_get(root, "cpu_oracle_matches")));
    assert_int_equal(json_integer_value(json_object_get(root, "first_mismatch")), 3);
    assert_true(json_is_null(json_object_get(root, "seconds")));
    assert_string_equal(json_string_value(json_object_get(root, "kernel_source_fingerprint")),
        r.kernel->source_fingerprint);
    assert_int_equal(json_array_size(json_object_get(root, "evidence")), 2);
    assert_string_equal(json_string_value(json_array_get(json_object_get(root, "evidence"), 1)),
        "second step");
    assert_true(json_array_size(json_object_get(root, "non_claims")) >= 3);
    assert_true(json_array_size(json_object_get(root, "required_evidence")) >= 1);
    assert_true(json_array_size(json_object_get(root, "obligations")) >= 1);
    assert_true(json_array_size(json_object_get(root, "targets")) >= 1);
    json_decref(root);
}

/* Text fields are UTF-8: well-formed sequences pass through (jansson decodes them back),
 * and stray bytes become U+FFFD instead of invalid JSON. */
static void json_keeps_utf8_and_replaces_bad_bytes(void **state)
{
    (void)state;
    tkh_report r = sample();
    /* e-acute (2 bytes), the euro sign (3), U+1F600 (4); then a lone continuation byte,
     * an overlong slash, a UTF-16 surrogate, a truncated sequence at the end */
    snprintf(r.message, sizeof r.message, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 | \x80 \xc0\xaf \xed\xa0\x80 \xe2\x82");
    char buf[16384];
    assert_int_equal(tkh_report_to_json(&r, buf, sizeof buf, NULL), TKH_OK);
    json_error_t err;
    json_t *root = json_loads(buf, 0, &err);
    if (root == NULL)
        fail_msg("invalid JSON at line %d: %s", err.line, err.text);
    assert_string_equal(json_string_value(json_object_get(root, "message")),
        "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 | "
        "\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd");
    json_decref(root);
}

static void markdown_has_fields_and_sections(void **state)
{
    (void)state;
    tkh_report r = sample();
    char buf[16384];
    assert_int_equal(tkh_report_to_markdown(&r, buf, sizeof buf, NULL), TKH_OK);
    assert_non_null(strstr(buf, "# TokitaiHip run: add i32\n"));
    assert_non_null(strstr(buf, "| op | add |\n"));
    assert_non_null(strstr(buf, "| cpu_oracle_matches | false |\n"));
    assert_non_null(strstr(buf, "| launch_block | 256 |\n"));
    assert_non_null(strstr(buf, "and \\| piped  |\n")); /* escaped pipe, no raw newline */
    assert_non_null(strstr(buf, "\n## evidence\n\n- first step\n- second step\n"));
    assert_non_null(strstr(buf, "\n## non_claims\n"));
}

static void small_buffer_reports_the_size(void **state)
{
    (void)state;
    tkh_report r = sample();
    char full[16384], small[10];
    size_t needed = 0, small_needed = 0;
    assert_int_equal(tkh_report_to_json(&r, full, sizeof full, &needed), TKH_OK);
    assert_int_equal(tkh_report_to_json(&r, small, sizeof small, &small_needed), TKH_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(small_needed, needed);
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_memory_equal(small, full, sizeof small - 1);
    assert_int_equal(tkh_report_to_json(&r, NULL, 0, &small_needed), TKH_ERR_BUFFER_TOO_SMALL);
    assert_int_equal(small_needed, needed);
    assert_int_equal(tkh_report_to_json(NULL, full, sizeof full, NULL), TKH_ERR_NULL_POINTER);
    assert_int_equal(tkh_report_to_markdown(&r, NULL, 5, NULL), TKH_ERR_NULL_POINTER);
}

static void report_without_kernel(void **state)
{
    (void)state;
    tkh_report r;
    memset(&r, 0, sizeof r);
    r.status = TKH_ERR_NULL_POINTER;
    char buf[8192];
    assert_int_equal(tkh_report_to_json(&r, buf, sizeof buf, NULL), TKH_OK);
    json_t *root = json_loads(buf, 0, NULL);
    assert_non_null(root);
    assert_string_equal(json_string_value(json_object_get(root, "op")), "");
    assert_int_equal(json_integer_value(json_object_get(root, "first_mismatch")), -1);
    json_decref(root);
}

static void device_report_json(void **state)
{
    (void)state;
    tkh_device_report d;
    memset(&d, 0, sizeof d);
    d.selected = -1;
    snprintf(d.reason, sizeof d.reason, "no \"GPU\"\x01");
    char buf[4096];
    assert_int_equal(tkh_device_report_to_json(&d, buf, sizeof buf, NULL), TKH_OK);
    json_t *root = json_loads(buf, 0, NULL);
    assert_non_null(root);
    assert_true(json_is_false(json_object_get(root, "available")));
    assert_string_equal(json_string_value(json_object_get(root, "reason")), d.reason);
    assert_int_equal(json_integer_value(json_object_get(root, "selected_device")), -1);
    json_decref(root);
    assert_int_equal(tkh_device_report_to_markdown(&d, buf, sizeof buf, NULL), TKH_OK);
    assert_non_null(strstr(buf, "| available | false |"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_is_valid_and_complete),
        cmocka_unit_test(json_keeps_utf8_and_replaces_bad_bytes),
        cmocka_unit_test(markdown_has_fields_and_sections),
        cmocka_unit_test(small_buffer_reports_the_size),
        cmocka_unit_test(report_without_kernel),
        cmocka_unit_test(device_report_json),
    };
    return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
