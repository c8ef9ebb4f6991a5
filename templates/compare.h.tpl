/* $(do_not_edit) */
/* Host-side comparison and printing of each scalar type of this catalog, for the oracle
 * checks in the stubs and for tests. Floats compare bit for bit, except that any NaN
 * equals any NaN; under the ulp rule, by their distance from an unrounded reference. */
#ifndef $(guard)_COMPARE_H
#define $(guard)_COMPARE_H

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tokitai_hip/codegen/scalar.h"

/* snprintf for the checks' messages, which are cut to their buffers on purpose (through
 * a va_list, so that the compiler does not warn of the cut at every call). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static inline int $(prefix)_detail(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

/* The ulp rule's measure is inlined into the checks' loops, which vectorize only so (GCC
 * 12 leaves it out of the 16-bit types' target clones otherwise). */
#if defined(__GNUC__)
#define TKH_ALWAYS_INLINE __attribute__((always_inline))
#else
#define TKH_ALWAYS_INLINE
#endif

@ for _, t in ipairs(types_used) do
@   if t.domain ~= "float" then
static inline int $(prefix)_same_$(t.name)($(t.c) x, $(t.c) y)
{
    return x == y;
}

static inline void $(prefix)_format_$(t.name)(char *buf, size_t size, $(t.c) v)
{
    $(prefix)_detail(buf, size, "%" $(t.fmt), v);
}
@   else
/* On the bits, branch-free, so that the checks' loops vectorize: NaN is above infinity. */
static inline int $(prefix)_same_$(t.name)($(t.c) x, $(t.c) y)
{
    $(t.bits_c) bx, by;
    memcpy(&bx, &x, sizeof bx);
    memcpy(&by, &y, sizeof by);
    const $(t.bits_c) magnitude = ($(t.bits_c))~(($(t.bits_c))1 << $(t.bits - 1));
    return (bx == by) | (((bx & magnitude) > $(t.inf_bits)) & ((by & magnitude) > $(t.inf_bits)));
}

static inline void $(prefix)_format_$(t.name)(char *buf, size_t size, $(t.c) v)
{
    unsigned char bytes[sizeof v];
    memcpy(bytes, &v, sizeof v);
    int len = $(prefix)_detail(buf, size, "%.17g (0x", (double)$(load(t, "v")));
    for (size_t i = sizeof v; i > 0 && len > 0 && (size_t)len < size; --i)
        len += $(prefix)_detail(buf + len, size - (size_t)len, "%02x", bytes[i - 1]);
    if (len > 0 && (size_t)len < size)
        $(prefix)_detail(buf + len, size - (size_t)len, ")");
}

@     local R, top = t.reference, "0x1p" .. (t.emax + 1)
@     if R == "long double" then top = top .. "L" end
/* The ulp rule (docs/semantics.md): the distance of a device result from the unrounded
 * reference r, in ulps of $(t.name) at r, or +inf where a rule for special values fails: r
 * NaN needs a NaN, r infinite needs that infinity, a NaN needs r NaN, and a zero must have
 * r's sign. Past the range, r counts as the next power of two above the largest finite
 * value ($(top)), and so does an infinite result: an overflow to infinity of r beyond the
 * rounding threshold is exact. The ulp at r is that of r's binade, clamped to the normal
 * range (subnormals share the smallest binade's ulp, 2^$(t.emin - t.mantissa + 1)). */
TKH_ALWAYS_INLINE static inline $(R) $(prefix)_ulp_error_$(t.name)($(t.compute) got, $(R) r)
{
    const $(R) g = ($(R))got;
    const $(R) top = $(top);
    const $(R) gc = isinf(g) ? (g < 0 ? -top : top) : g, rc = r > top ? top : r < -top ? -top : r;
@     if R == "double" then
    /* Without branches, and the rules for special values on the bits (the compiler does
     * not vectorize isnan's or signbit's int results among doubles), so that the checks'
     * loops vectorize with the reference. The binade from the exponent bits (a double
     * subnormal is far below the range). */
    uint64_t bits, g_bits, r_bits;
    memcpy(&bits, &rc, sizeof bits);
    memcpy(&g_bits, &g, sizeof g_bits);
    memcpy(&r_bits, &r, sizeof r_bits);
    int64_t e = (int64_t)((bits >> 52) & 0x7FF) - 1023;
    e = e < $(t.emin) ? $(t.emin) : e > $(t.emax) ? $(t.emax) : e;
    const uint64_t scale_bits = (uint64_t)(1023 + $(t.mantissa - 1) - e) << 52; /* 2^(p-1-e) */
    double scale;
    memcpy(&scale, &scale_bits, sizeof scale);
    const double distance = fabs(gc - rc) * scale;
    const int sign_differs = ((g_bits ^ r_bits) >> 63) != 0;
    return r != r ? (g != g ? 0 : INFINITY) : g != g ? INFINITY
         : fabs(r) == INFINITY ? (g == r ? 0 : INFINITY)
         : (g == 0 && sign_differs) ? INFINITY : distance;
@     else
    if (isnan(r) || isnan(g))
        return isnan(r) && isnan(g) ? 0 : INFINITY;
    if (isinf(r))
        return g == r ? 0 : INFINITY;
    if (g == 0 && !signbit(g) != !signbit(r)) /* signbit: any non-zero for set */
        return INFINITY;
    int e = 0;
    (void)frexpl(rc, &e); /* rc = m 2^e, 0.5 <= |m| < 1: the binade is e - 1 */
    e = rc == 0 || e - 1 < $(t.emin) ? $(t.emin) : e - 1 > $(t.emax) ? $(t.emax) : e - 1;
    return ldexpl(fabsl(gc - rc), $(t.mantissa - 1) - e);
@     end
}

/* The largest of count errors of $(prefix)_ulp_error_$(t.name) (0 for none). */
static inline $(R) $(prefix)_largest_error_$(t.name)(const $(R) *error, size_t count)
{
@     if R == "double" then
    /* On the bits, which order as the values do for errors (>= 0, or +inf, never NaN):
     * GCC vectorizes an integer maximum, not a double one that must respect NaN. */
    uint64_t most = 0;
    for (size_t i = 0; i < count; ++i) {
        uint64_t bits;
        memcpy(&bits, &error[i], sizeof bits);
        most = bits > most ? bits : most;
    }
    double largest;
    memcpy(&largest, &most, sizeof largest);
    return largest;
@     else
    $(R) largest = 0;
    for (size_t i = 0; i < count; ++i)
        largest = error[i] > largest ? error[i] : largest;
    return largest;
@     end
}
@   end

@ end
#endif
