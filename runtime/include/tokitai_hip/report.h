/* Reports: the evidence of one run of a host entry point, as data, Markdown or JSON. */
#ifndef TOKITAI_HIP_REPORT_H
#define TOKITAI_HIP_REPORT_H

#include <stddef.h>

#include "tokitai_hip/context.h"
#include "tokitai_hip/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tkh_kernel_info;

#define TKH_REPORT_MAX_EVIDENCE 24

typedef struct tkh_report {
    tkh_status status;
    char message[512];                     /* tkh_last_error() of a failed run, else "" */
    const struct tkh_kernel_info *kernel;  /* op, type, fingerprints and contract */
    tkh_device_report device;
    size_t len;                            /* n */
    char scalars[256];                     /* the scalars' values: "alpha = 2, beta = -0.5" */
    tkh_oracle_mode oracle_mode;           /* the context's policy for this run */
    unsigned long long oracle_seed;        /* TKH_ORACLE_SAMPLED, _PROJECTED: the seed of the
                                              indices, or of the projections' weights */
    int oracle_checked;                    /* the oracle ran (full or sampled) */
    size_t oracle_compared;                /* outputs compared (with repeats, when sampled) */
    int oracle_matches;                    /* and all were equal */
    size_t oracle_projected;               /* TKH_ORACLE_PROJECTED: of those compared, the
                                              outputs checked by projection (the rest in full) */
    double oracle_threshold;               /* and where that is not 0, floats: one output wrong
                                              by more than this is certain to be caught (0 for
                                              integers: any wrong output is) */
    size_t first_mismatch;                 /* index, or len when none */
    double max_ulp_error;                  /* ulp rule: the largest error among the outputs
                                              compared, in ulps of the type; else 0 */
    size_t max_ulp_error_index;            /* where; len when max_ulp_error is 0 */
    unsigned launch_grid;
    unsigned launch_block;
    double seconds;                        /* wall time of the whole call */
    size_t evidence_count;
    char evidence[TKH_REPORT_MAX_EVIDENCE][192]; /* what this run did, step by step */
} tkh_report;

/* Writes the report as Markdown or JSON into buf (NUL-terminated), like snprintf: *needed
 * (when not NULL) receives the length without the NUL. JSON is always valid: strings
 * are escaped (control and non-ASCII bytes as \u00XX, each byte read as Latin-1), numbers
 * are finite.
 * Fails with: TKH_ERR_NULL_POINTER (report; buf when size > 0), TKH_ERR_BUFFER_TOO_SMALL
 * (buf then holds a truncated, NUL-terminated prefix; call again with *needed + 1). */
TKH_API tkh_status tkh_report_to_markdown(const tkh_report *report, char *buf, size_t size,
    size_t *needed);
TKH_API tkh_status tkh_report_to_json(const tkh_report *report, char *buf, size_t size,
    size_t *needed);

/* The same for a device report (tokitai-hip info). */
TKH_API tkh_status tkh_device_report_to_markdown(const tkh_device_report *report, char *buf,
    size_t size, size_t *needed);
TKH_API tkh_status tkh_device_report_to_json(const tkh_device_report *report, char *buf,
    size_t size, size_t *needed);

#ifdef __cplusplus
}
#endif

#endif
