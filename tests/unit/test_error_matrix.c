/* The bad-input matrix: every public function that can fail, called with each kind of bad
 * input that applies to it, on a context made here (no GPU needed). Each case must fail
 * with a status, a message naming the value, nothing written to its outputs, and the
 * rows it produces must equal the table in docs/errors.md, so the table cannot drift
 * from the code (TKH_UPDATE_ERRORS_DOC=1 rewrites the table; review the diff). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "platform/platform.h" /* the context's state */

enum { N = 8, POISON = 0x5A5A5A5A };

static tkh_context ctx;  /* device "usable", matching add_i32's first target */
static int32_t lhs[N], rhs[N], out[N], overlap[N + 1];
static float fin[N], fout[N];
static tkh_report report;

static const tkh_kernel_info *kernel(const char *op, const char *type)
{
    return tkh_registry_find(tkh_registry_core(), op, type);
}

/* ---- the calls ---- */
static tkh_status run_null_ctx(void) { return tkh_add_i32(NULL, lhs, rhs, out, N, &report); }
static tkh_status run_null_input(void) { return tkh_add_i32(&ctx, lhs, NULL, out, N, &report); }
static tkh_status run_null_out(void) { return tkh_add_i32(&ctx, lhs, rhs, NULL, N, &report); }
static tkh_status run_empty(void) { return tkh_add_i32(&ctx, lhs, rhs, out, 0, &report); }
static tkh_status run_overflow(void) { return tkh_add_i32(&ctx, lhs, rhs, out, SIZE_MAX / 2, &report); }
static tkh_status run_overlap(void) { return tkh_add_i32(&ctx, overlap, rhs, overlap + 1, N, &report); }
static tkh_status run_unknown_op(void)
{
    const void *in[2] = { lhs, rhs };
    return tkh_kernel_run(&ctx, kernel("fma", "i32"), in, 2, out, N, &report);
}
static tkh_status run_unknown_type(void)
{
    const void *in[2] = { lhs, rhs };
    return tkh_kernel_run(&ctx, kernel("add", "i31"), in, 2, out, N, &report);
}
static tkh_status run_arity(void)
{
    const void *in[1] = { lhs };
    return tkh_kernel_run(&ctx, kernel("add", "i32"), in, 1, out, N, &report);
}
static tkh_status run_null_inputs(void) { return tkh_kernel_run(&ctx, kernel("add", "i32"), NULL, 2, out, N, &report); }
static tkh_status sum_null_in(void) { return tkh_sum_f32(&ctx, NULL, fout, N, &report); }
static tkh_status sum_empty(void) { return tkh_sum_f32(&ctx, fin, fout, 0, &report); }
static tkh_status launch_null_ctx(void) { return tkh_add_i32_device(NULL, lhs, rhs, out, N, NULL); }
static tkh_status launch_empty(void) { return tkh_add_i32_device(&ctx, lhs, rhs, out, 0, NULL); }
static tkh_status launch_overflow(void) { return tkh_add_i32_device(&ctx, lhs, rhs, out, SIZE_MAX / 2, NULL); }
static tkh_status launch_misaligned(void)
{
    return tkh_add_i32_device(&ctx, lhs, (const int32_t *)(const void *)((const char *)rhs + 2), out, N - 1, NULL);
}
static tkh_status launch_overlap(void) { return tkh_add_i32_device(&ctx, overlap, rhs, overlap + 1, N, NULL); }
static tkh_status admit_null(void) { return tkh_kernel_admit(NULL, "sm_90"); }
static tkh_status admit_foreign(void)
{
    static const char *const targets[] = { "gfx90a", "sm_90", NULL }; /* the same on every platform */
    tkh_kernel_info k = *kernel("add", "i32");
    k.targets = targets;
    k.platform = "amd";
    return tkh_kernel_admit(&k, "gfx000");
}
static tkh_status create_null(void) { return tkh_context_create(NULL, 0); }
static tkh_status create_bad_index(void) { tkh_context *c; return tkh_context_create(&c, -5); }
/* tkh_context_create(TKH_DEVICE_FROM_ENV) with one variable set for the call. */
static tkh_status create_with_env(const char *name, const char *value)
{
    tkh_context *c;
    setenv(name, value, 1);
    tkh_status st = tkh_context_create(&c, TKH_DEVICE_FROM_ENV);
    unsetenv(name);
    return st;
}
static tkh_status create_bad_env(void) { return create_with_env("TOKITAI_HIP_DEVICE", "one"); }
static tkh_status create_bad_group(void) { return create_with_env("CTEST_RESOURCE_GROUP_0_GPUS", "gpu:1"); }
static tkh_status query_null(void) { return tkh_device_query(0, NULL); }
static tkh_status trim_null(void) { return tkh_context_trim(NULL); }
static tkh_status oracle_null_ctx(void) { tkh_oracle_policy p = { TKH_ORACLE_FULL, 0, 0 }; return tkh_context_set_oracle(NULL, &p); }
static tkh_status oracle_null(void) { return tkh_context_set_oracle(&ctx, NULL); }
static tkh_status oracle_bad_mode(void) { tkh_oracle_policy p = { (tkh_oracle_mode)7, 0, 0 }; return tkh_context_set_oracle(&ctx, &p); }
static tkh_status oracle_no_samples(void) { tkh_oracle_policy p = { TKH_ORACLE_SAMPLED, 0, 1 }; return tkh_context_set_oracle(&ctx, &p); }
static tkh_status corrupt_null(void) { return tkh_context_corrupt_next_output(NULL, 0, 0); }
static tkh_status corrupt_bit(void) { return tkh_context_corrupt_next_output(&ctx, 0, 64); }
static tkh_status fault_null(void) { return tkh_context_inject_fault(NULL, TKH_FAULT_COPY, 0); }
static tkh_status fault_kind(void) { return tkh_context_inject_fault(&ctx, (tkh_fault)9, 0); }
static tkh_status json_null(void) { char b[8]; return tkh_report_to_json(NULL, b, sizeof b, NULL); }
static tkh_status json_small(void)
{
    char b[8];
    tkh_report r = { 0 };
    return tkh_report_to_json(&r, b, sizeof b, NULL);
}
static tkh_status md_null_buf(void) { tkh_report r = { 0 }; return tkh_report_to_markdown(&r, NULL, 8, NULL); }
static tkh_status selftest_null(void) { tkh_selftest_result r; size_t s = 1; return tkh_registry_selftest(&ctx, NULL, &s, 1, 0, &r); }
static tkh_status selftest_no_sizes(void) { tkh_selftest_result r; return tkh_registry_selftest(&ctx, tkh_registry_core(), NULL, 0, 0, &r); }
static tkh_status selftest_zero(void) { tkh_selftest_result r; size_t s = 0; return tkh_registry_selftest(&ctx, tkh_registry_core(), &s, 1, 0, &r); }
static tkh_status shapes_with_outputs(void)
{
    int64_t dims[1] = { N };
    DLTensor t = { lhs, { kDLCPU, 0 }, 1, { kDLInt, 32, 1 }, dims, NULL, 0 };
    const DLTensor *in[2] = { &t, &t }, *outs[1] = { &t };
    const tkh_tensor_args a = { in, 2, outs, 1, NULL, 0, NULL, 0, 0, NULL };
    tkh_tensor_shape shapes[1];
    return tkh_tensor_output_shapes(kernel("add", "i32"), &a, shapes);
}
static tkh_status abi_unknown(void) { size_t v; return tkh_abi_layout("tkh_report.nothing", &v); }

typedef struct error_case {
    const char *function;
    const char *input;
    tkh_status (*call)(void);
    int fills_report;
} error_case;

static const error_case cases[] = {
    { "tkh_add_i32 (tkh_kernel_run)", "NULL context", run_null_ctx, 1 },
    { "tkh_add_i32 (tkh_kernel_run)", "NULL input", run_null_input, 1 },
    { "tkh_add_i32 (tkh_kernel_run)", "NULL out", run_null_out, 1 },
    { "tkh_add_i32 (tkh_kernel_run)", "n = 0", run_empty, 1 },
    { "tkh_add_i32 (tkh_kernel_run)", "n * sizeof overflows", run_overflow, 1 },
    { "tkh_add_i32 (tkh_kernel_run)", "out partially overlaps an input", run_overlap, 1 },
    { "tkh_kernel_run", "unknown op (registry lookup gave NULL)", run_unknown_op, 1 },
    { "tkh_kernel_run", "unknown type (registry lookup gave NULL)", run_unknown_type, 1 },
    { "tkh_kernel_run", "wrong number of inputs", run_arity, 1 },
    { "tkh_kernel_run", "NULL inputs array", run_null_inputs, 1 },
    { "tkh_sum_f32 (tkh_kernel_run)", "NULL input", sum_null_in, 1 },
    { "tkh_sum_f32 (tkh_kernel_run)", "n = 0", sum_empty, 1 },
    { "tkh_add_i32_device (tkh_kernel_launch)", "NULL context", launch_null_ctx, 0 },
    { "tkh_add_i32_device (tkh_kernel_launch)", "n = 0", launch_empty, 0 },
    { "tkh_add_i32_device (tkh_kernel_launch)", "n * sizeof overflows", launch_overflow, 0 },
    { "tkh_add_i32_device (tkh_kernel_launch)", "device pointer not aligned to the element", launch_misaligned, 0 },
    { "tkh_add_i32_device (tkh_kernel_launch)", "out partially overlaps an input", launch_overlap, 0 },
    { "tkh_kernel_admit", "NULL kernel", admit_null, 0 },
    { "tkh_kernel_admit", "device not among the kernel's targets", admit_foreign, 0 },
    { "tkh_context_create", "NULL out", create_null, 0 },
    { "tkh_context_create", "device index below -1", create_bad_index, 0 },
    { "tkh_context_create", "TOKITAI_HIP_DEVICE not an index", create_bad_env, 0 },
    { "tkh_context_create", "CTEST_RESOURCE_GROUP_0_GPUS without id:", create_bad_group, 0 },
    { "tkh_device_query", "NULL out", query_null, 0 },
    { "tkh_context_trim", "NULL context", trim_null, 0 },
    { "tkh_context_set_oracle", "NULL context", oracle_null_ctx, 0 },
    { "tkh_context_set_oracle", "NULL policy", oracle_null, 0 },
    { "tkh_context_set_oracle", "unknown mode", oracle_bad_mode, 0 },
    { "tkh_context_set_oracle", "sampled with 0 samples", oracle_no_samples, 0 },
    { "tkh_context_corrupt_next_output", "NULL context", corrupt_null, 0 },
    { "tkh_context_corrupt_next_output", "bit > 63", corrupt_bit, 0 },
    { "tkh_context_inject_fault", "NULL context", fault_null, 0 },
    { "tkh_context_inject_fault", "unknown fault kind", fault_kind, 0 },
    { "tkh_report_to_json", "NULL report", json_null, 0 },
    { "tkh_report_to_json", "buffer too small", json_small, 0 },
    { "tkh_report_to_markdown", "NULL buffer with size > 0", md_null_buf, 0 },
    { "tkh_registry_selftest", "NULL registry", selftest_null, 0 },
    { "tkh_registry_selftest", "no sizes", selftest_no_sizes, 0 },
    { "tkh_registry_selftest", "a size of 0", selftest_zero, 0 },
    { "tkh_tensor_output_shapes", "outputs given", shapes_with_outputs, 0 },
    { "tkh_abi_layout", "a name it does not list", abi_unknown, 0 },
};

/* The message with addresses and numbers that depend on the machine (pointers, SIZE_MAX)
 * replaced, so the row is the same everywhere; '|' escaped for Markdown. */
static void normalize(const char *msg, char *dst, size_t size)
{
    size_t o = 0;
    for (const char *p = msg; *p && o + 8 < size;) {
        if (p[0] == '0' && p[1] == 'x' && isxdigit((unsigned char)p[2])) {
            o += (size_t)snprintf(dst + o, size - o, "0x...");
            for (p += 2; isxdigit((unsigned char)*p); ++p) {}
        } else if (isdigit((unsigned char)*p) && strspn(p, "0123456789") >= 10) {
            o += (size_t)snprintf(dst + o, size - o, "N");
            p += strspn(p, "0123456789");
        } else if (*p == '|') {
            o += (size_t)snprintf(dst + o, size - o, "\\|");
            ++p;
        } else {
            dst[o++] = *p++;
        }
    }
    dst[o] = '\0';
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (text != NULL && fread(text, 1, (size_t)len, f) == (size_t)len)
        text[len] = '\0';
    else {
        free(text);
        text = NULL;
    }
    fclose(f);
    return text;
}

#define BEGIN "<!-- matrix: begin (written by test_error_matrix) -->\n"
#define END "<!-- matrix: end -->\n"

static void matrix_matches_docs(void **state)
{
    (void)state;
    const tkh_kernel_info *add = kernel("add", "i32");
    ctx.device.available = 1;
    ctx.device.compute_units = 4;
    ctx.chunk_bytes = (size_t)16 << 20;
    ctx.corrupt_index = SIZE_MAX;
    snprintf(ctx.device.arch, sizeof ctx.device.arch, "%s", add->targets[0]);
    assert_int_equal(pthread_mutex_init(&ctx.lock, NULL), 0);

    size_t cap = 64 * 1024, len = 0;
    char *table = malloc(cap);
    assert_non_null(table);
    len += (size_t)snprintf(table + len, cap - len,
        "| function | bad input | status | message |\n| --- | --- | --- | --- |\n");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const error_case *c = &cases[i];
        for (int j = 0; j < N; ++j)
            out[j] = overlap[j] = POISON;
        overlap[N] = POISON;
        memset(fout, 0x5A, sizeof fout);
        memset(&report, 0xEE, sizeof report);
        tkh_status st = c->call();
        if (st == TKH_OK)
            fail_msg("%s, %s: succeeded", c->function, c->input);
        const char *msg = tkh_last_error();
        if (msg[0] == '\0')
            fail_msg("%s, %s: %s without a message", c->function, c->input, tkh_status_name(st));
        if (c->fills_report) {
            assert_int_equal(report.status, st);
            assert_string_equal(report.message, msg);
            assert_int_equal(report.oracle_checked, 0);
        }
        for (int j = 0; j < N; ++j) {
            assert_int_equal(out[j], POISON);
            assert_int_equal(overlap[j + 1], POISON);
        }
        for (int j = 0; j < N; ++j)
            assert_memory_equal(&fout[j], "\x5A\x5A\x5A\x5A", 4);
        char clean[1200];
        normalize(msg, clean, sizeof clean);
        len += (size_t)snprintf(table + len, cap - len, "| `%s` | %s | `%s` | %s |\n", c->function,
            c->input, tkh_status_name(st), clean);
        assert_true(len < cap);
    }
    pthread_mutex_destroy(&ctx.lock);

    const char *path = TKH_SOURCE_DIR "/docs/errors.md";
    char *doc = read_file(path);
    assert_non_null(doc);
    char *begin = strstr(doc, BEGIN), *end = begin ? strstr(begin, END) : NULL;
    if (begin == NULL || end == NULL)
        fail_msg("%s has no '%.30s...' / '%.20s' markers", path, BEGIN, END);
    begin += strlen(BEGIN);
    const int same = (size_t)(end - begin) == len && memcmp(begin, table, len) == 0;
    const char *update = getenv("TKH_UPDATE_ERRORS_DOC");
    if (!same && update != NULL && strcmp(update, "1") == 0) {
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fwrite(doc, 1, (size_t)(begin - doc), f);
        fwrite(table, 1, len, f);
        fputs(end, f);
        assert_int_equal(fclose(f), 0);
        fail_msg("rewrote the matrix in %s: review the diff, then run again without "
            "TKH_UPDATE_ERRORS_DOC", path); /* an update never passes as a check */
    } else if (!same) {
        printf("%s", table);
        fail_msg("the matrix in %s differs from what the calls return (printed above); "
            "rerun with TKH_UPDATE_ERRORS_DOC=1 and review the diff", path);
    }
    free(doc);
    free(table);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(matrix_matches_docs) };
    return cmocka_run_group_tests_name("error_matrix", tests, NULL, NULL);
}
