#include "tokitai_hip/tokitai_hip.h"

#define TKH_STR_(x) #x
#define TKH_STR(x) TKH_STR_(x)

unsigned tkh_version_number(void)
{
    return TKH_VERSION_NUMBER;
}

const char *tkh_version_string(void)
{
    return TKH_STR(TKH_VERSION_MAJOR) "." TKH_STR(TKH_VERSION_MINOR) "." TKH_STR(TKH_VERSION_PATCH);
}

/* The same test, in the same order, as the resolvers of TKH_CHECK_CLONES (GCC's). */
const char *tkh_host_check_level(void)
{
#if defined(TKH_HOST_CLONES)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("x86-64-v4"))
        return "x86-64-v4";
    if (__builtin_cpu_supports("x86-64-v3"))
        return "x86-64-v3";
#endif
    return "baseline";
}
