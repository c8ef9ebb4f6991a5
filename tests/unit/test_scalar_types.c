/* The scalar types' table (tokitai_hip/scalar_types.h, generated from gen/tkh/types.lua)
 * against facts from elsewhere: dlpack.h's codes, C's sizes and limits, <float.h> and
 * the f16 and bf16 conversions; values that print and parse back, edges included; text
 * that parse refuses; and the report's description of scalars, f16 and bf16 with bits. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/base.h" /* tkhi_describe_scalars */
#include "tokitai_hip/codegen/scalar.h"
#include "tokitai_hip/tokitai_hip.h"

typedef struct fact {
    const char *name;
    tkh_scalar_family family;
    int code;
    unsigned bits;
    size_t size;
} fact;

/* What each type is by DLPack and C, written out here independently of the generator. */
static const fact facts[] = {
    { "i8", TKH_SCALAR_SIGNED, kDLInt, 8, sizeof(int8_t) },
    { "i16", TKH_SCALAR_SIGNED, kDLInt, 16, sizeof(int16_t) },
    { "i32", TKH_SCALAR_SIGNED, kDLInt, 32, sizeof(int32_t) },
    { "i64", TKH_SCALAR_SIGNED, kDLInt, 64, sizeof(int64_t) },
    { "u8", TKH_SCALAR_UNSIGNED, kDLUInt, 8, sizeof(uint8_t) },
    { "u16", TKH_SCALAR_UNSIGNED, kDLUInt, 16, sizeof(uint16_t) },
    { "u32", TKH_SCALAR_UNSIGNED, kDLUInt, 32, sizeof(uint32_t) },
    { "u64", TKH_SCALAR_UNSIGNED, kDLUInt, 64, sizeof(uint64_t) },
    { "f16", TKH_SCALAR_FLOAT, kDLFloat, 16, sizeof(uint16_t) },
    { "bf16", TKH_SCALAR_FLOAT, kDLBfloat, 16, sizeof(uint16_t) },
    { "f32", TKH_SCALAR_FLOAT, kDLFloat, 32, sizeof(float) },
    { "f64", TKH_SCALAR_FLOAT, kDLFloat, 64, sizeof(double) },
    { "bool", TKH_SCALAR_BOOL, TKH_DLPACK_BOOL, 8, sizeof(bool) },
};
#define FACTS (sizeof facts / sizeof facts[0])

static const tkh_scalar_type *type(const char *name)
{
    const tkh_scalar_type *t = tkh_scalar_type_find(name);
    assert_non_null(t);
    return t;
}

static void rows_match_dlpack_and_c(void **state)
{
    (void)state;
    size_t count = 0;
    const tkh_scalar_type *rows = tkh_scalar_types(&count);
    assert_non_null(rows);
    assert_int_equal(count, FACTS);
    assert_ptr_equal(tkh_scalar_types(NULL), rows);
    for (size_t i = 0; i < FACTS; ++i) {
        const tkh_scalar_type *t = &rows[i];
        assert_string_equal(t->name, facts[i].name); /* the generator's order */
        assert_int_equal(t->family, facts[i].family);
        assert_int_equal(t->dlpack_code, facts[i].code);
        assert_int_equal(t->bits, facts[i].bits);
        assert_int_equal(t->size, facts[i].size);
        assert_int_equal(t->size * 8, t->bits);
        assert_int_equal(t->stored_as_bits, t->family == TKH_SCALAR_FLOAT && t->size == 2);
        assert_non_null(t->format);
        assert_non_null(t->parse);
        assert_int_equal(t->to_double != NULL, t->family == TKH_SCALAR_FLOAT);
        assert_int_equal(t->from_double != NULL, t->family == TKH_SCALAR_FLOAT);
        /* found by name and by dtype; tkh_dlpack_dtype agrees */
        assert_ptr_equal(tkh_scalar_type_find(facts[i].name), t);
        const DLDataType dtype = { (uint8_t)facts[i].code, (uint8_t)facts[i].bits, 1 };
        assert_ptr_equal(tkh_scalar_type_of_dlpack(dtype), t);
        DLDataType got = { 0, 0, 0 };
        assert_int_equal(tkh_dlpack_dtype(facts[i].name, &got), TKH_OK);
        assert_int_equal(got.code, dtype.code);
        assert_int_equal(got.bits, dtype.bits);
        assert_int_equal(got.lanes, 1);
    }
}

static void lookups_fail_as_documented(void **state)
{
    (void)state;
    assert_null(tkh_scalar_type_find(NULL));
    assert_null(tkh_scalar_type_find(""));
    assert_null(tkh_scalar_type_find("F32"));
    assert_null(tkh_scalar_type_find("f32 "));
    assert_null(tkh_scalar_type_find("i128"));
    assert_null(tkh_scalar_type_of_dlpack((DLDataType){ kDLFloat, 32, 2 }));  /* lanes */
    assert_null(tkh_scalar_type_of_dlpack((DLDataType){ kDLFloat, 32, 0 }));
    assert_null(tkh_scalar_type_of_dlpack((DLDataType){ kDLFloat, 8, 1 }));   /* width */
    assert_null(tkh_scalar_type_of_dlpack((DLDataType){ kDLBfloat, 32, 1 }));
    assert_null(tkh_scalar_type_of_dlpack((DLDataType){ kDLInt, 1, 1 }));
    assert_null(tkh_scalar_type_of_dlpack((DLDataType){ TKH_DLPACK_BOOL, 1, 1 }));
    assert_null(tkh_scalar_type_of_dlpack((DLDataType){ 5, 64, 1 }));          /* kDLComplex */
    DLDataType got;
    assert_int_equal(tkh_dlpack_dtype("f31", &got), TKH_ERR_INVALID_ARGUMENT);
    assert_string_equal(tkh_last_error(), "tkh_dlpack_dtype: 'f31' is not a type of ours (i8..i64, u8..u64, "
        "f16, bf16, f32, f64, bool)");
    assert_int_equal(tkh_dlpack_dtype(NULL, &got), TKH_ERR_NULL_POINTER);
    assert_int_equal(tkh_dlpack_dtype("f32", NULL), TKH_ERR_NULL_POINTER);
}

static void limits_match_c(void **state)
{
    (void)state;
    const struct { const char *name; int64_t min; uint64_t max; } limits[] = {
        { "i8", INT8_MIN, INT8_MAX }, { "i16", INT16_MIN, INT16_MAX },
        { "i32", INT32_MIN, INT32_MAX }, { "i64", INT64_MIN, INT64_MAX },
        { "u8", 0, UINT8_MAX }, { "u16", 0, UINT16_MAX }, { "u32", 0, UINT32_MAX },
        { "u64", 0, UINT64_MAX }, { "bool", 0, 1 },
    };
    for (size_t i = 0; i < sizeof limits / sizeof limits[0]; ++i) {
        const tkh_scalar_type *t = type(limits[i].name);
        assert_true(t->min == limits[i].min);
        assert_true(t->max == limits[i].max);
    }
    /* floats: <float.h>'s for f32 and f64 */
    assert_int_equal(type("f32")->mantissa, FLT_MANT_DIG);
    assert_int_equal(type("f32")->emin, FLT_MIN_EXP - 1);
    assert_int_equal(type("f32")->emax, FLT_MAX_EXP - 1);
    assert_int_equal(type("f64")->mantissa, DBL_MANT_DIG);
    assert_int_equal(type("f64")->emin, DBL_MIN_EXP - 1);
    assert_int_equal(type("f64")->emax, DBL_MAX_EXP - 1);
    /* every float: the largest finite value, the smallest normal and subnormal as the
     * table's numbers give them, against their bit patterns */
    const struct { const char *name; uint64_t largest, normal, subnormal; } bits[] = {
        { "f16", 0x7BFF, 0x0400, 0x0001 }, { "bf16", 0x7F7F, 0x0080, 0x0001 },
        { "f32", 0x7F7FFFFF, 0x00800000, 0x00000001 },
        { "f64", 0x7FEFFFFFFFFFFFFF, 0x0010000000000000, 0x0000000000000001 },
    };
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; ++i) {
        const tkh_scalar_type *t = type(bits[i].name);
        assert_true(t->to_double(&bits[i].largest) == ldexp(2 - ldexp(1, 1 - t->mantissa), t->emax));
        assert_true(t->to_double(&bits[i].normal) == ldexp(1, t->emin));
        assert_true(t->to_double(&bits[i].subnormal) == ldexp(1, t->emin - t->mantissa + 1));
    }
    assert_true(type("f32")->to_double(&(float){ FLT_MAX }) == FLT_MAX);
}

/* format, then parse: the same bytes (NaN: a NaN); the text when 'want' is given. */
static void round_trip(const char *name, const void *value, const char *want)
{
    const tkh_scalar_type *t = type(name);
    char text[64];
    const int n = t->format(value, text, sizeof text);
    assert_true(n > 0 && (size_t)n < sizeof text);
    assert_int_equal((size_t)n, strlen(text));
    assert_int_equal(t->format(value, NULL, 0), n); /* the length, as snprintf */
    if (want != NULL)
        assert_string_equal(text, want);
    unsigned char back[8];
    memset(back, 0xA5, sizeof back);
    assert_int_equal(t->parse(text, back), TKH_SCALAR_PARSED);
    if (t->to_double != NULL && isnan(t->to_double(value)))
        assert_true(isnan(t->to_double(back)));
    else
        assert_memory_equal(back, value, t->size);
    for (size_t b = t->size; b < sizeof back; ++b)
        assert_int_equal(back[b], 0xA5); /* nothing beyond the value */
}

static void integers_round_trip(void **state)
{
    (void)state;
    round_trip("i8", &(int8_t){ INT8_MIN }, "-128");
    round_trip("i8", &(int8_t){ INT8_MAX }, "127");
    round_trip("i8", &(int8_t){ -1 }, "-1");
    round_trip("i16", &(int16_t){ INT16_MIN }, "-32768");
    round_trip("i32", &(int32_t){ INT32_MIN }, "-2147483648");
    round_trip("i32", &(int32_t){ INT32_MAX }, "2147483647");
    round_trip("i64", &(int64_t){ INT64_MIN }, "-9223372036854775808");
    round_trip("i64", &(int64_t){ INT64_MAX }, "9223372036854775807");
    round_trip("i64", &(int64_t){ 0 }, "0");
    round_trip("u8", &(uint8_t){ UINT8_MAX }, "255");
    round_trip("u16", &(uint16_t){ UINT16_MAX }, "65535");
    round_trip("u32", &(uint32_t){ UINT32_MAX }, "4294967295");
    round_trip("u64", &(uint64_t){ UINT64_MAX }, "18446744073709551615");
    round_trip("u64", &(uint64_t){ 0 }, "0");
    round_trip("bool", &(uint8_t){ 0 }, "0");
    round_trip("bool", &(uint8_t){ 1 }, "1");
    /* the other forms parse takes */
    int64_t i = 0;
    assert_int_equal(type("i64")->parse("-0x8000000000000000", &i), TKH_SCALAR_PARSED);
    assert_true(i == INT64_MIN);
    uint8_t u = 0;
    assert_int_equal(type("u8")->parse("0xff", &u), TKH_SCALAR_PARSED);
    assert_int_equal(u, 255);
    assert_int_equal(type("u8")->parse("010", &u), TKH_SCALAR_PARSED); /* octal */
    assert_int_equal(u, 8);
    assert_int_equal(type("bool")->parse("true", &u), TKH_SCALAR_PARSED);
    assert_int_equal(u, 1);
    assert_int_equal(type("bool")->parse("false", &u), TKH_SCALAR_PARSED);
    assert_int_equal(u, 0);
}

static void floats_round_trip(void **state)
{
    (void)state;
    round_trip("f32", &(float){ 0x1p-149f }, "1.40129846e-45");
    round_trip("f32", &(float){ -0x1p-149f }, "-1.40129846e-45");
    round_trip("f32", &(float){ FLT_MAX }, "3.40282347e+38");
    round_trip("f32", &(float){ 0.1f }, "0.100000001");
    round_trip("f32", &(float){ -0.0f }, "-0");
    round_trip("f32", &(float){ INFINITY }, "inf");
    round_trip("f32", &(float){ -INFINITY }, "-inf");
    round_trip("f32", &(float){ NAN }, NULL);
    round_trip("f32", &(float){ 0x1.fffffep+23f }, "16777215");
    round_trip("f64", &(double){ 0x1p-1074 }, "4.9406564584124654e-324");
    round_trip("f64", &(double){ DBL_MAX }, "1.7976931348623157e+308");
    round_trip("f64", &(double){ 0.1 }, "0.10000000000000001");
    round_trip("f64", &(double){ -0.0 }, "-0");
    round_trip("f64", &(double){ -INFINITY }, "-inf");
    round_trip("f64", &(double){ NAN }, NULL);
    round_trip("f16", &(uint16_t){ 0x7BFF }, "65504");
    round_trip("f16", &(uint16_t){ 0x0001 }, "5.96046448e-08");
    round_trip("f16", &(uint16_t){ 0x8000 }, "-0");
    round_trip("f16", &(uint16_t){ 0xFC00 }, "-inf");
    round_trip("bf16", &(uint16_t){ 0x7F7F }, "3.38953139e+38");
    round_trip("bf16", &(uint16_t){ 0x3F80 }, "1");
    /* every f16 and bf16 value, and f32 values of every binade */
    for (uint32_t h = 0; h < 0x10000; ++h) {
        round_trip("f16", &(uint16_t){ (uint16_t)h }, NULL);
        round_trip("bf16", &(uint16_t){ (uint16_t)h }, NULL);
    }
    for (uint64_t x = 1; x < 0x100000000u; x += 0x10000u + 0x1357u)
        round_trip("f32", &(float){ tkh_f32_from_bits((uint32_t)x) }, NULL);
}

/* Doubles round once to f16 and bf16 (not through f32 rounded to nearest). */
static void floats_round_once(void **state)
{
    (void)state;
    uint16_t h = 0;
    /* 1 + 2^-11 + 2^-40: just above the midpoint of f16's 1 and 1 + 2^-10, which an f32
     * rounded to nearest would land on, and then round to even, down */
    const double d = 1 + 0x1p-11 + 0x1p-40;
    type("f16")->from_double(d, &h);
    assert_int_equal(h, 0x3C01);
    assert_int_equal(type("f16")->parse("0x1.0020000001p0", &h), TKH_SCALAR_PARSED);
    assert_int_equal(h, 0x3C01);
    type("bf16")->from_double(1 + 0x1p-8 + 0x1p-40, &h);
    assert_int_equal(h, 0x3F81);
    type("f16")->from_double(65520.0, &h); /* halfway to 2^16: to infinity */
    assert_int_equal(h, 0x7C00);
    assert_int_equal(type("f16")->parse("1e400", &h), TKH_SCALAR_PARSED);
    assert_int_equal(h, 0x7C00);
    assert_int_equal(type("bf16")->parse("-1e-400", &h), TKH_SCALAR_PARSED);
    assert_int_equal(h, 0x8000);
    float f = 0;
    assert_int_equal(type("f32")->parse("0x1.000001p0", &f), TKH_SCALAR_PARSED); /* a tie: to even */
    assert_true(f == 1.0f);
    type("f32")->from_double(0x1.0000018p0, &f);
    assert_true(f == 0x1.000002p0f);
    double back = 0;
    type("f64")->from_double(-0x1p-1074, &back);
    assert_true(back == -0x1p-1074);
}

/* parse refuses: 'value' keeps its bytes. */
static void refuses(const char *name, const char *text, int why)
{
    unsigned char value[8], before[8];
    memset(value, 0x5A, sizeof value);
    memcpy(before, value, sizeof value);
    const int got = type(name)->parse(text, value);
    if (got != why)
        fail_msg("%s parse '%s': got %d, expected %d", name, text, got, why);
    assert_memory_equal(value, before, sizeof value);
}

static void parse_refuses_junk_and_out_of_range(void **state)
{
    (void)state;
    static const char *const junk[] = { "", "abc", "1x", "1 ", "1.5", "1e3", "0x", "--1", "1-", "0x1g" };
    static const char *const integers[] = { "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64" };
    for (size_t t = 0; t < sizeof integers / sizeof integers[0]; ++t)
        for (size_t j = 0; j < sizeof junk / sizeof junk[0]; ++j)
            refuses(integers[t], junk[j], TKH_SCALAR_NOT_A_VALUE);
    static const char *const float_junk[] = { "", "abc", "1x", "1 ", "1e", "0x1p", "1,5", "nan1", "--1" };
    static const char *const floats[] = { "f16", "bf16", "f32", "f64" };
    for (size_t t = 0; t < sizeof floats / sizeof floats[0]; ++t)
        for (size_t j = 0; j < sizeof float_junk / sizeof float_junk[0]; ++j)
            refuses(floats[t], float_junk[j], TKH_SCALAR_NOT_A_VALUE);
    /* an unsigned type takes no sign, not even "-0" */
    refuses("u8", "-1", TKH_SCALAR_NOT_A_VALUE);
    refuses("u64", "-1", TKH_SCALAR_NOT_A_VALUE);
    refuses("u32", "-0", TKH_SCALAR_NOT_A_VALUE);
    refuses("bool", "2", TKH_SCALAR_NOT_A_VALUE);
    refuses("bool", "TRUE", TKH_SCALAR_NOT_A_VALUE);
    refuses("bool", "", TKH_SCALAR_NOT_A_VALUE);
    refuses("bool", "1 ", TKH_SCALAR_NOT_A_VALUE);
    refuses("i8", "128", TKH_SCALAR_OUT_OF_RANGE);
    refuses("i8", "-129", TKH_SCALAR_OUT_OF_RANGE);
    refuses("i8", "0x80", TKH_SCALAR_OUT_OF_RANGE);
    refuses("i16", "32768", TKH_SCALAR_OUT_OF_RANGE);
    refuses("i32", "-2147483649", TKH_SCALAR_OUT_OF_RANGE);
    refuses("i64", "9223372036854775808", TKH_SCALAR_OUT_OF_RANGE);
    refuses("i64", "-9223372036854775809", TKH_SCALAR_OUT_OF_RANGE);
    refuses("u8", "256", TKH_SCALAR_OUT_OF_RANGE);
    refuses("u16", "65536", TKH_SCALAR_OUT_OF_RANGE);
    refuses("u32", "0x100000000", TKH_SCALAR_OUT_OF_RANGE);
    refuses("u64", "18446744073709551616", TKH_SCALAR_OUT_OF_RANGE);
    refuses("u64", "99999999999999999999", TKH_SCALAR_OUT_OF_RANGE);
}

/* The report's "name = value" list: floats as %.9g / %.17g, f16 and bf16 with their
 * bits, integers widened by their signedness, in declared order. */
static void report_describes_scalars(void **state)
{
    (void)state;
    static const tkh_operand scalars[] = {
        { .name = "a", .type = "f16", .size = 2 }, { .name = "b", .type = "bf16", .size = 2 },
        { .name = "c", .type = "f32", .size = 4 }, { .name = "d", .type = "f64", .size = 8 },
        { .name = "e", .type = "i8", .size = 1 }, { .name = "f", .type = "u64", .size = 8 },
        { .name = "g", .type = "bool", .size = 1 }, { .name = "h", .type = "i64", .size = 8 },
    };
    const tkh_kernel_info k = { .op = "test", .type = "f32", .scalars = scalars, .scalar_count = 8 };
    const uint16_t a = 0xFE00, b = 0x3EAB;
    const float c = 0.1f;
    const double d = -0x1p-1074;
    const int8_t e = -128;
    const uint64_t f = UINT64_MAX;
    const uint8_t g = 1;
    const int64_t h = INT64_MIN;
    const void *const values[] = { &a, &b, &c, &d, &e, &f, &g, &h };
    char buf[512];
    tkhi_describe_scalars(&k, values, buf, sizeof buf);
    assert_string_equal(buf, "a = -nan (0xfe00), b = 0.333984375 (0x3eab), c = 0.100000001, "
        "d = -4.9406564584124654e-324, e = -128, f = 18446744073709551615, g = 1, h = -9223372036854775808");
    char small[24];
    tkhi_describe_scalars(&k, values, small, sizeof small); /* truncated, terminated */
    assert_string_equal(small, "a = -nan (0xfe00), b = ");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_match_dlpack_and_c),
        cmocka_unit_test(lookups_fail_as_documented),
        cmocka_unit_test(limits_match_c),
        cmocka_unit_test(integers_round_trip),
        cmocka_unit_test(floats_round_trip),
        cmocka_unit_test(floats_round_once),
        cmocka_unit_test(parse_refuses_junk_and_out_of_range),
        cmocka_unit_test(report_describes_scalars),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
