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
        snprintf(buf, size, "%s", kernel->outputs[0].name);
    else
        snprintf(buf, size, "%s %u (%s)", output ? "output" : "input", i,
            output ? kernel->outputs[i].name : kernel->inputs[i].name);
    return buf;
}

void tkhi_evidence(tkh_report *r, const char *fmt, ...)
{
    if (r == NULL || r->evidence_count >= TKH_REPORT_MAX_EVIDENCE)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->evidence[r->evidence_count++], sizeof r->evidence[0], fmt, ap);
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
