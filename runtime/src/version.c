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
