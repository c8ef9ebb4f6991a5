/* What a report says: evidence lines, its start and end, the names of arrays and the
 * values of scalars in messages. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base.h"

const char *tkhi_array_name(const tkh_kernel_info *kernel, int output, unsigned i, char *buf,
    size_t size)
{
    if (output && kernel->output_count == 1)
        tkhi_copy(buf, size, kernel->outputs[0].name);
    else
        tkhi_format(buf, size, "%s %u (%s)", output ? "output" : "input", i,
            output ? kernel->outputs[i].name : kernel->inputs[i].name);
    return buf;
}

size_t tkhi_append(char *buf, size_t size, size_t len, const char *s, size_t n)
{
    size_t room = len + 1 < size ? size - 1 - len : 0;
    n = n < room ? n : room;
    memcpy(buf + len, s, n);
    return len + n;
}

size_t tkhi_append_int(char *buf, size_t size, size_t len, int negative, unsigned long long magnitude)
{
    char digits[24];
    size_t n = 0;
    do
        digits[sizeof digits - 1 - n++] = (char)('0' + magnitude % 10);
    while ((magnitude /= 10) != 0);
    if (negative)
        digits[sizeof digits - 1 - n++] = '-';
    return tkhi_append(buf, size, len, digits + sizeof digits - n, n);
}

/* The conversion at fmt (after its '%'): its length modifier ("", "l", "ll", "z") and letter,
 * or 0 for one tkhi_vformat leaves to vsnprintf. */
static char conversion(const char *fmt, int *longs, int *size_t_arg, size_t *used)
{
    *longs = 0, *size_t_arg = 0;
    size_t i = 0;
    if (fmt[i] == 'z')
        *size_t_arg = 1, ++i;
    else
        while (fmt[i] == 'l' && *longs < 2)
            ++*longs, ++i;
    char c = fmt[i];
    *used = i + 1;
    if (c == 's' || c == '%')
        return i == 0 ? c : 0;
    return c == 'd' || c == 'u' ? c : 0;
}

int tkhi_vformat(char *buf, size_t size, const char *fmt, va_list ap)
{
    int longs, size_t_arg;
    size_t used, len = 0, wanted = 0;
    char num[24];
    va_list from_start; /* for vsnprintf, at the first conversion this leaves to it */
    va_copy(from_start, ap);
    for (const char *p = fmt; *p != '\0';) {
        const char *s = p;
        size_t n;
        if (*p != '%') {
            const char *next = strchr(p, '%');
            n = next ? (size_t)(next - p) : strlen(p);
            p += n;
        } else {
            char c = conversion(p + 1, &longs, &size_t_arg, &used);
            p += 1 + used;
            if (c == 0) {
                const int all = vsnprintf(buf, size, fmt, from_start);
                va_end(from_start);
                return all;
            }
            if (c == 's') {
                s = va_arg(ap, const char *);
                s = s ? s : "(null)";
                n = strlen(s);
            } else if (c == '%') {
                s = "%", n = 1;
            } else {
                unsigned long long u;
                int negative = 0;
                if (c == 'd') {
                    long long v = size_t_arg ? (long long)va_arg(ap, ptrdiff_t) : longs == 2 ? va_arg(ap, long long)
                        : longs ? va_arg(ap, long) : va_arg(ap, int);
                    negative = v < 0;
                    u = negative ? 0 - (unsigned long long)v : (unsigned long long)v;
                } else {
                    u = size_t_arg ? va_arg(ap, size_t) : longs == 2 ? va_arg(ap, unsigned long long)
                        : longs ? va_arg(ap, unsigned long) : va_arg(ap, unsigned);
                }
                n = tkhi_append_int(num, sizeof num, 0, negative, u);
                s = num;
            }
        }
        len = tkhi_append(buf, size, len, s, n);
        wanted += n;
    }
    va_end(from_start);
    if (size > 0)
        buf[len] = '\0';
    return (int)wanted;
}

int tkhi_format(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = tkhi_vformat(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

void tkhi_evidence(tkh_report *r, const char *fmt, ...)
{
    if (r == NULL || r->evidence_count >= TKH_REPORT_MAX_EVIDENCE)
        return;
    va_list ap;
    va_start(ap, fmt);
    tkhi_vformat(r->evidence[r->evidence_count++], sizeof r->evidence[0], fmt, ap);
    va_end(ap);
}

void tkhi_ulp_evidence(tkh_report *r, const tkh_kernel_info *k, double worst, const char *where)
{
    tkhi_evidence(r, "largest error %.3g ulps (output %s), bound %.6g ulps%s", worst, where, k->ulp_bound,
        k->abs_tolerance > 0 ? " (outputs within the absolute floor of the reference counted as 0)" : "");
}


void tkhi_report_begin(tkh_report *r, const tkh_device_report *device, const tkh_kernel_info *kernel,
    size_t n)
{
    if (r == NULL)
        return;
    memset(r, 0, sizeof *r);
    r->kernel = kernel;
    r->len = n;
    r->first_mismatch = n;
    if (device != NULL)
        r->device = *device;
}

tkh_status tkhi_report_end(tkh_report *r, tkh_status st, double start)
{
    if (r != NULL) {
        r->status = st;
        r->seconds = tkhi_now_seconds() - start;
        tkhi_copy(r->message, sizeof r->message, st == TKH_OK ? "" : tkh_last_error());
    }
    return st;
}

void tkhi_describe_scalars(const tkh_kernel_info *k, const void *const *scalars, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (unsigned j = 0; j < k->scalar_count && len < size; ++j) {
        const tkh_scalar_type *t = tkh_scalar_type_find(k->scalars[j].type);
        char one[64] = "?";
        if (t != NULL) {
            const int n = t->format(scalars[j], one, sizeof one);
            if (t->stored_as_bits && n > 0 && (size_t)n < sizeof one) { /* f16, bf16: and their bits */
                uint64_t bits = 0;
                memcpy(&bits, scalars[j], t->size); /* little-endian: the low bytes */
                snprintf(one + n, sizeof one - (size_t)n, " (0x%0*" PRIx64 ")", (int)(2 * t->size), bits);
            }
        }
        const int w = snprintf(buf + len, size - len, "%s%s = %s", j ? ", " : "", k->scalars[j].name, one);
        len += w > 0 ? (size_t)w : 0;
    }
}
