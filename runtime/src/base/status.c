/* Status names and messages from the one table in status.h, and the per-thread detail
 * of the last failure. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base.h"
#include "tokitai_hip/codegen/hip_platform.h"

static _Thread_local char last_error[1024];
static _Thread_local int fault_injected; /* the last runtime error came from the fault hook */

const char *tkh_status_name(tkh_status status)
{
    switch (status) {
#define TKH_STATUS_NAME(name, value, text) case name: return #name;
        TKH_STATUS_MAP(TKH_STATUS_NAME)
#undef TKH_STATUS_NAME
    }
    return "TKH_STATUS_UNKNOWN";
}

const char *tkh_status_message(tkh_status status)
{
    switch (status) {
#define TKH_STATUS_TEXT(name, value, text) case name: return text;
        TKH_STATUS_MAP(TKH_STATUS_TEXT)
#undef TKH_STATUS_TEXT
    }
    return "unknown status";
}

const char *tkh_last_error(void)
{
    return last_error;
}

void tkhi_clear_error(void)
{
    last_error[0] = '\0';
    fault_injected = 0;
}

void tkhi_fault_mark(int injected)
{
    fault_injected = injected;
}

void tkhi_copy(char *dst, size_t size, const char *src)
{
    if (size == 0)
        return;
    /* not snprintf: it takes glibc's slow path once a process has printf handlers (a report's
     * two copies a call, tkhi_vformat) */
    dst[tkhi_append(dst, size, 0, src ? src : "", src ? strlen(src) : 0)] = '\0';
}

tkh_status tkhi_fail(tkh_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

tkh_status tkhi_fail_runtime(tkh_status status, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    if (len >= 0 && (size_t)len < sizeof last_error) {
        hipError_t err = (hipError_t)code;
        snprintf(last_error + len, sizeof last_error - (size_t)len, ": %s (%d): %s%s",
            hipGetErrorName(err), code, hipGetErrorString(err),
            fault_injected ? " (injected by tkh_context_inject_fault)" : "");
    }
    return status;
}

const char *tkh_oracle_mode_name(tkh_oracle_mode mode)
{
    switch (mode) {
    case TKH_ORACLE_FULL: return "full";
    case TKH_ORACLE_SAMPLED: return "sampled";
    case TKH_ORACLE_OFF: return "off";
    case TKH_ORACLE_PROJECTED: return "projected";
    }
    return "unknown";
}
