/* $(do_not_edit) */
/* The scalar types' table (tokitai_hip/scalar_types.h): a row per type of gen/tkh/types.lua,
 * in its order, with the functions that print, parse and convert a value. Compiled into
 * the runtime library once: only the core catalog's generation writes it (--runtime-tables). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokitai_hip/codegen/scalar.h"
#include "tokitai_hip/scalar_types.h"

/* text as an integer in [min, max]: strtoll's forms, nothing after the number. */
static int parse_signed(const char *text, int64_t min, int64_t max, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    const long long v = strtoll(text, &end, 0);
    if (end == text || *end != '\0')
        return TKH_SCALAR_NOT_A_VALUE;
    if (errno == ERANGE || v < min || v > max)
        return TKH_SCALAR_OUT_OF_RANGE;
    *out = (int64_t)v;
    return TKH_SCALAR_PARSED;
}

/* The same without a sign: strtoull would take "-1" as its largest value. */
static int parse_unsigned(const char *text, uint64_t max, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    if (strchr(text, '-') != NULL)
        return TKH_SCALAR_NOT_A_VALUE;
    const unsigned long long v = strtoull(text, &end, 0);
    if (end == text || *end != '\0')
        return TKH_SCALAR_NOT_A_VALUE;
    if (errno == ERANGE || v > max)
        return TKH_SCALAR_OUT_OF_RANGE;
    *out = (uint64_t)v;
    return TKH_SCALAR_PARSED;
}

/* text as strtod reads it (rounded once to a double), nothing after the number. */
static int parse_double(const char *text, double *out)
{
    char *end = NULL;
    const double d = strtod(text, &end);
    if (end == text || *end != '\0')
        return TKH_SCALAR_NOT_A_VALUE;
    *out = d;
    return TKH_SCALAR_PARSED;
}

@ local function as_double(t, x) -- a float type's value as a double
@   return t.compute == "double" and load(t, x) or "(double)" .. load(t, x)
@ end
@ for _, t in ipairs(rows) do
/* $(t.name): $(t.c)$(t.load and (", computed in " .. t.compute) or "") */
static int format_$(t.name)(const void *value, char *buf, size_t size)
{
@   if t.family == "float" then
    $(t.c) x;
    memcpy(&x, value, sizeof x);
    return snprintf(buf, size, "%.$(t.digits)g", $(as_double(t, "x")));
@   else
    $(t.c) x;
    memcpy(&x, value, sizeof x);
    return snprintf(buf, size, "%" $(t.fmt), x);
@   end
}

@   if t.family == "float" then
static double to_double_$(t.name)(const void *value)
{
    $(t.c) x;
    memcpy(&x, value, sizeof x);
    return $(as_double(t, "x"));
}

@     if t.c == "double" then
static void from_double_$(t.name)(double v, void *value)
{
    memcpy(value, &v, sizeof v);
}

static int parse_$(t.name)(const char *text, void *value)
{
    double d;
    const int rc = parse_double(text, &d);
    if (rc == TKH_SCALAR_PARSED)
        memcpy(value, &d, sizeof d);
    return rc;
}
@     elseif t.c == "float" then
static void from_double_$(t.name)(double v, void *value)
{
    const float x = (float)v;
    memcpy(value, &x, sizeof x);
}

/* Rounded once, from the decimal text itself. */
static int parse_$(t.name)(const char *text, void *value)
{
    double d;
    const int rc = parse_double(text, &d);
    if (rc == TKH_SCALAR_PARSED) {
        const float x = strtof(text, NULL);
        memcpy(value, &x, sizeof x);
    }
    return rc;
}
@     else
/* Rounded once: through f32 rounded to odd (tokitai_hip/codegen/scalar.h). */
static void from_double_$(t.name)(double v, void *value)
{
    const $(t.c) x = $(t.store)(tkh_f64_to_f32_odd(v));
    memcpy(value, &x, sizeof x);
}

static int parse_$(t.name)(const char *text, void *value)
{
    double d;
    const int rc = parse_double(text, &d);
    if (rc == TKH_SCALAR_PARSED)
        from_double_$(t.name)(d, value);
    return rc;
}
@     end
@   elseif t.family == "bool" then
static int parse_$(t.name)(const char *text, void *value)
{
    const int one = strcmp(text, "1") == 0 || strcmp(text, "true") == 0;
    if (!one && strcmp(text, "0") != 0 && strcmp(text, "false") != 0)
        return TKH_SCALAR_NOT_A_VALUE;
    const $(t.c) x = ($(t.c))one;
    memcpy(value, &x, sizeof x);
    return TKH_SCALAR_PARSED;
}
@   else
@     local signed = t.family == "signed"
static int parse_$(t.name)(const char *text, void *value)
{
    $(signed and "int64_t" or "uint64_t") v;
@     if signed then
    const int rc = parse_signed(text, $(t.min), $(t.max), &v);
@     else
    const int rc = parse_unsigned(text, $(t.max), &v);
@     end
    if (rc == TKH_SCALAR_PARSED) {
        const $(t.c) x = ($(t.c))v;
        memcpy(value, &x, sizeof x);
    }
    return rc;
}
@   end

@ end
static const tkh_scalar_type rows[] = {
@ for _, t in ipairs(rows) do
@   local float = t.family == "float"
    { .name = "$(t.name)", .family = TKH_SCALAR_$(t.family:upper()), .dlpack_code = $(t.dlpack),
      .bits = $(t.bits), .size = sizeof($(t.c)), .stored_as_bits = $(t.load and 1 or 0),
@   if float then
      .min = 0, .max = 0, .mantissa = $(t.mantissa), .emin = $(t.emin), .emax = $(t.emax),
      .format = format_$(t.name), .parse = parse_$(t.name),
      .to_double = to_double_$(t.name), .from_double = from_double_$(t.name) },
@   else
      .min = $(t.min), .max = $(t.max), .mantissa = 0, .emin = 0, .emax = 0,
      .format = format_$(t.name), .parse = parse_$(t.name), .to_double = NULL, .from_double = NULL },
@   end
@ end
};

const tkh_scalar_type *tkh_scalar_types(size_t *count)
{
    if (count != NULL)
        *count = sizeof rows / sizeof rows[0];
    return rows;
}

const tkh_scalar_type *tkh_scalar_type_find(const char *name)
{
    for (size_t i = 0; name != NULL && i < sizeof rows / sizeof rows[0]; ++i)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    return NULL;
}

const tkh_scalar_type *tkh_scalar_type_of_dlpack(DLDataType dtype)
{
    for (size_t i = 0; dtype.lanes == 1 && i < sizeof rows / sizeof rows[0]; ++i)
        if (dtype.code == rows[i].dlpack_code && dtype.bits == rows[i].bits)
            return &rows[i];
    return NULL;
}
