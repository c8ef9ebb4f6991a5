/* The scalar types (i8 ... u64, f16, bf16, f32, f64, bool), one row each: the name,
 * the DLPack dtype, the size, the family, and how a value prints and parses. The rows
 * are generated from the generator's list of types (gen/tkh/types.lua) into the core
 * catalog's build (templates/scalar_types.c.tpl, tkhgen.lua --runtime-tables): the
 * runtime and the tokitai-hip tool read every fact about a type from here. */
#ifndef TOKITAI_HIP_SCALAR_TYPES_H
#define TOKITAI_HIP_SCALAR_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include <dlpack/dlpack.h>

#include "tokitai_hip/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* DLPack's type code for bool (kDLBool, from DLPack 0.8; Debian's 0.6 lacks it), what
 * torch, CuPy and JAX send for bool tensors: taken with 8 bits for our bool, one byte per
 * element, non-zero read as true. */
#define TKH_DLPACK_BOOL 6

typedef enum tkh_scalar_family {
    TKH_SCALAR_SIGNED,    /* i8, i16, i32, i64 */
    TKH_SCALAR_UNSIGNED,  /* u8, u16, u32, u64 */
    TKH_SCALAR_FLOAT,     /* f16, bf16, f32, f64 */
    TKH_SCALAR_BOOL       /* bool: one byte, 0 or 1 */
} tkh_scalar_family;

/* What a row's parse returns. */
typedef enum tkh_scalar_parse_result {
    TKH_SCALAR_PARSED = 0,        /* the value was written */
    TKH_SCALAR_NOT_A_VALUE = 1,   /* the text is no value of the type (empty, trailing text,
                                     a sign for an unsigned type, a fraction for an integer) */
    TKH_SCALAR_OUT_OF_RANGE = 2   /* an integer outside [min, max] */
} tkh_scalar_parse_result;

typedef struct tkh_scalar_type {
    const char *name;             /* "i8", "bf16", "bool": as tkh_operand.type spells it */
    tkh_scalar_family family;
    uint8_t dlpack_code;          /* kDLInt, kDLUInt, kDLFloat, kDLBfloat or TKH_DLPACK_BOOL,
                                     with 'bits' bits and one lane */
    uint8_t bits;                 /* width in memory */
    size_t size;                  /* bytes of one value in memory: bits / 8 */
    int stored_as_bits;           /* 1 for f16 and bf16: stored as the bits of a type C lacks,
                                     computed in f32; reports show the bits beside the value */
    int64_t min;                  /* integers and bool: the values parse accepts; 0 for floats */
    uint64_t max;
    int mantissa, emin, emax;     /* floats: significand bits (with the implicit one) and the
                                     exponents of the smallest and largest normal binades;
                                     0 for the others */
    /* Writes the value at 'value' (size bytes, any alignment) into buf as snprintf does
     * (NUL-terminated, truncated to size; buf may be NULL when size is 0) and returns the
     * length of the whole text: integers and bool in decimal, floats as "%.9g" (f16, bf16,
     * f32) or "%.17g" (f64): "inf", "-inf", "nan" or "-nan" for the special values. parse
     * reads the text back to the same value (any NaN to a NaN; a bool byte other than 0
     * or 1 prints as its number, which parse refuses). Never fails. */
    int (*format)(const void *value, char *buf, size_t size);
    /* Reads text as a value of the type into 'value' (size bytes, any alignment), which is
     * written only on TKH_SCALAR_PARSED. Integers: strtoll's forms (decimal, 0x hex, 0
     * octal), in [min, max], else TKH_SCALAR_OUT_OF_RANGE; an unsigned type takes no '-'.
     * Floats: strtod's forms ("1e-5", "0x1p-3", "inf", "nan"), rounded once to nearest
     * even (beyond the largest finite value: infinity). bool: "0", "1", "false" or "true".
     * Returns TKH_SCALAR_NOT_A_VALUE for anything else: empty text, text after the value. */
    int (*parse)(const char *text, void *value);
    /* Floats only (NULL for the others): the value as a double (exact), and a double
     * rounded once to the type, to nearest even. */
    double (*to_double)(const void *value);
    void (*from_double)(double v, void *value);
} tkh_scalar_type;

/* The table, in the generator's order (i8, i16, i32, i64, u8 ... u64, f16, bf16, f32, f64,
 * bool), and its number of rows in *count (when count is not NULL). Never fails. */
TKH_API const tkh_scalar_type *tkh_scalar_types(size_t *count);

/* The row of the type named 'name' ("f32"). Returns NULL when name is NULL or names no
 * type of ours. */
TKH_API const tkh_scalar_type *tkh_scalar_type_find(const char *name);

/* The row of the DLPack dtype 'dtype' (code and bits, one lane: kDLFloat 32 is f32).
 * Returns NULL for a dtype that is no type of ours (another code or width, or lanes other
 * than 1). */
TKH_API const tkh_scalar_type *tkh_scalar_type_of_dlpack(DLDataType dtype);

#ifdef __cplusplus
}
#endif

#endif
