/* The tests' look into a report: whether an evidence line contains 'text'. */
#ifndef TOKITAI_HIP_TEST_EVIDENCE_H
#define TOKITAI_HIP_TEST_EVIDENCE_H

#include <string.h>

#include "tokitai_hip/report.h"

static inline int has_evidence(const tkh_report *r, const char *text)
{
    for (size_t i = 0; i < r->evidence_count; ++i)
        if (strstr(r->evidence[i], text) != NULL)
            return 1;
    return 0;
}

#endif
