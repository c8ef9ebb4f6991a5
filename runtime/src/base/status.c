/* Status names and messages from the one table in status.h, and the per-thread detail
 * of the last failure. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "platform.h"
#include "tokitai_hip/codegen/hip_platform.h"

static _Thread_local char last_error[1024];

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
    tkhi_fault_forget();
}

void tkhi_copy(char *dst, size_t size, const char *src)
{
    if (size == 0)
        return;
    snprintf(dst, size, "%s", src ? src : "");
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
            tkhi_fault_was_injected() ? " (injected by tkh_context_inject_fault)" : "");
    }
    return status;
}
