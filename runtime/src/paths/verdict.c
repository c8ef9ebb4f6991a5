/* The oracle's verdict on a call, one for both paths and every shape: the report's
 * fields, its evidence, and the status with the first difference. A flat call on the
 * host (flat arrays, or compact tensors the flat kernels ran) names an output by its
 * index, any other call by its multi-index in the call's shape. */
#include <stdio.h>
#include <string.h>

#include "paths.h"

tkh_status tkhi_verdict(const tkhi_call *c, const tkhi_oracle *o, size_t n, tkh_report *rep)
{
    const tkh_kernel_info *k = c->kernel;
    const size_t outputs = (size_t)tkhi_plan_outputs(c, &c->plan); /* elements of each output */
    const size_t worst_at = o->note.worst > 0 ? o->note.worst_index : n;
    char at[200], of[200];
    if (rep != NULL) {
        rep->oracle_mode = o->policy.mode;
        rep->oracle_seed = tkhi_oracle_seed(&o->policy);
        rep->oracle_checked = o->policy.mode != TKH_ORACLE_OFF;
        rep->oracle_compared = o->compared;
        rep->oracle_matches = rep->oracle_checked && o->bad == SIZE_MAX;
        rep->oracle_projected = o->projection != NULL ? o->projected : 0;
        rep->oracle_threshold = rep->oracle_projected > 0 ? o->threshold : 0;
        rep->first_mismatch = o->bad == SIZE_MAX ? n : o->bad;
        rep->max_ulp_error = o->note.worst;
        rep->max_ulp_error_index = worst_at;
    }
    const int flat = c->flat && !c->on_device;
    if (o->policy.mode == TKH_ORACLE_OFF) {
        tkhi_evidence(rep, "oracle policy off: the %zu outputs were not compared with the CPU oracle", outputs);
        return TKH_OK;
    }
    if (flat) {
        snprintf(at, sizeof at, "%zu", o->bad == SIZE_MAX ? worst_at : o->bad);
        snprintf(of, sizeof of, "%zu", outputs);
    } else {
        tkhi_format_index(c, (int64_t)(o->bad == SIZE_MAX ? o->note.worst_index : o->bad), at, sizeof at);
        if (c->drops && k->check_product == NULL) /* a matrix product's shape is its output's */
            snprintf(of, sizeof of, "the reduction");
        else
            tkhi_format_dims(of, sizeof of, c->ndim, c->shape);
    }
    if (o->bad != SIZE_MAX) {
        if (flat)
            tkhi_evidence(rep, "compared outputs with the CPU oracle (%s): output %zu differs",
                tkh_oracle_mode_name(o->policy.mode), o->bad);
        return tkhi_fail(TKH_ERR_ORACLE_MISMATCH, "%s_%s: element %s of %s differs from the CPU oracle: %s",
            k->op, k->type, at, of, o->note.detail);
    }
    if (o->projection != NULL) {
        const int whole_numbers = strcmp(k->domain, "integer") == 0;
        tkhi_evidence(rep, "checked %zu of %zu outputs by projection (seed %llu), each row's sums over blocks of 128 "
            "columns, %s, against those from the inputs; %zu in full: all agree", o->projected, o->compared,
            o->policy.seed, whole_numbers ? "odd random weights mod 2^bits" : "random signs, within bounds",
            o->compared - o->projected);
        if (whole_numbers)
            tkhi_evidence(rep, "projection: any one wrong output in a block is certain to be caught, several with "
                "probability at least 1/2; a block that differs is recomputed in full");
        else if (o->projected > 0)
            tkhi_evidence(rep, "projection: one output wrong by more than %.3g (twice its block's bound, the largest "
                "here) is certain to be caught; a block that differs is recomputed in full", o->threshold);
    } else if (!flat)
        tkhi_evidence(rep, "compared %s%zu outputs with the CPU oracle walking the plan (%s), %s rule: all agree",
            o->policy.mode == TKH_ORACLE_SAMPLED ? "sampled " : "all ", o->compared,
            tkh_oracle_mode_name(o->policy.mode), k->compare_rule);
    else if (o->policy.mode == TKH_ORACLE_SAMPLED && k->out_count == 0)
        tkhi_evidence(rep, "compared %zu sampled outputs (seed %llu) of %zu with the CPU oracle, %s rule: all agree",
            o->compared, o->policy.seed, outputs, k->compare_rule);
    else
        tkhi_evidence(rep, "compared all %zu outputs (from %zu inputs) with the CPU oracle, %s rule: all agree",
            outputs, n, k->compare_rule);
    if (k->check_product != NULL && strcmp(k->domain, "integer") != 0)
        tkhi_evidence(rep, c->nearest ? "sum bound: k roundings to nearest at the accumulator's unit roundoff, in any "
            "order (fused multiply-adds ran: the FMA tiles or the small-m kernel)" : "sum bound: 2k + 2 roundings at twice the "
            "accumulator's unit roundoff (a matrix-instruction kernel may have run, whose rounding is not IEEE's)");
    if (strcmp(k->compare_rule, "bound") == 0)
        tkhi_evidence(rep, "largest error %.3g of its bound (element %s%s)", o->note.worst, at,
            o->projection != NULL ? ", or the projected block that starts there" : "");
    if (strstr(k->compare_rule, "ulp") != NULL)
        tkhi_ulp_evidence(rep, k, o->note.worst, at);
    return TKH_OK;
}
