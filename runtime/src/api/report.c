/* Reports as Markdown and JSON: two walks of one field table per report kind. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"

typedef enum { F_TEXT, F_UINT, F_INT, F_BOOL, F_REAL, F_LIST } field_kind;

/* A list is either NULL-terminated pointers, or 'count' rows of a char[count][stride]. */
typedef struct value {
    field_kind kind;
    const char *text;
    unsigned long long u;
    long long i;
    double r;
    const char *const *items;
    const char *rows;
    size_t stride, count;
} value;

typedef struct field {
    const char *name;
    value (*get)(const void *obj);
} field;

typedef struct sink {
    char *buf;
    size_t size, len;
} sink;

static void put(sink *s, const char *fmt, ...) TKHI_PRINTF(2, 3);
static void put(sink *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *at = s->len < s->size ? s->buf + s->len : NULL;
    int n = vsnprintf(at, at ? s->size - s->len : 0, fmt, ap);
    va_end(ap);
    if (n > 0)
        s->len += (size_t)n;
}

static size_t list_count(const value *v)
{
    if (v->rows != NULL)
        return v->count;
    size_t n = 0;
    while (v->items != NULL && v->items[n] != NULL)
        ++n;
    return n;
}

static const char *list_item(const value *v, size_t i)
{
    return v->rows != NULL ? v->rows + i * v->stride : v->items[i];
}

/* ---- the fields ---- */

#define RUN(r) ((const tkh_report *)(r))
#define KERNEL_TEXT(member) (RUN(o)->kernel ? RUN(o)->kernel->member : "")

static value text(const char *t) { return (value){ .kind = F_TEXT, .text = t ? t : "" }; }
static value uint_(unsigned long long u) { return (value){ .kind = F_UINT, .u = u }; }
static value int_(long long i) { return (value){ .kind = F_INT, .i = i }; }
static value bool_(int b) { return (value){ .kind = F_BOOL, .u = b != 0 }; }
static value list(const char *const *items) { return (value){ .kind = F_LIST, .items = items }; }

static value r_backend(const void *o)
{
    return text(RUN(o)->device.platform[0] ? (strcmp(RUN(o)->device.platform, "nvidia") == 0
        ? "tokitai_hip/nvidia" : "tokitai_hip/amd") : "tokitai_hip");
}
static value r_status(const void *o) { return text(tkh_status_name(RUN(o)->status)); }
static value r_message(const void *o) { return text(RUN(o)->message); }
static value r_catalog(const void *o) { return text(KERNEL_TEXT(catalog)); }
static value r_op(const void *o) { return text(KERNEL_TEXT(op)); }
static value r_type(const void *o) { return text(KERNEL_TEXT(type)); }
static value r_symbol(const void *o) { return text(KERNEL_TEXT(symbol)); }
static value r_len(const void *o) { return uint_(RUN(o)->len); }
static value r_checked(const void *o) { return bool_(RUN(o)->oracle_checked); }
static value r_mode(const void *o) { return text(tkh_oracle_mode_name(RUN(o)->oracle_mode)); }
static value r_compared(const void *o) { return uint_(RUN(o)->oracle_compared); }
static value r_projected(const void *o) { return uint_(RUN(o)->oracle_projected); }
static value r_threshold(const void *o) { return (value){ .kind = F_REAL, .r = RUN(o)->oracle_threshold }; }
static value r_seed(const void *o) { return uint_(RUN(o)->oracle_seed); }
static value r_matches(const void *o) { return bool_(RUN(o)->oracle_matches); }
static value r_mismatch(const void *o)
{
    const tkh_report *r = RUN(o);
    return r->oracle_checked && !r->oracle_matches ? int_((long long)r->first_mismatch) : int_(-1);
}
static value r_comparison(const void *o) { return text(KERNEL_TEXT(comparison)); }
static value r_rule(const void *o) { return text(KERNEL_TEXT(compare_rule)); }
static value r_bound(const void *o) { return (value){ .kind = F_REAL, .r = RUN(o)->kernel ? RUN(o)->kernel->ulp_bound : 0 }; }
static value r_atol(const void *o) { return (value){ .kind = F_REAL, .r = RUN(o)->kernel ? RUN(o)->kernel->abs_tolerance : 0 }; }
static value r_worst(const void *o) { return (value){ .kind = F_REAL, .r = RUN(o)->max_ulp_error }; }
static value r_worst_at(const void *o)
{
    const tkh_report *r = RUN(o);
    return r->max_ulp_error > 0 ? int_((long long)r->max_ulp_error_index) : int_(-1);
}
static value r_source_fp(const void *o) { return text(KERNEL_TEXT(source_fingerprint)); }
static value r_compiler(const void *o) { return text(KERNEL_TEXT(compiler)); }
static value r_compiler_fp(const void *o) { return text(KERNEL_TEXT(compiler_fingerprint)); }
static value r_build_fp(const void *o) { return text(KERNEL_TEXT(build_fingerprint)); }
static value r_build_cmd(const void *o) { return text(KERNEL_TEXT(build_command)); }
static value r_device(const void *o) { return text(RUN(o)->device.name); }
static value r_arch(const void *o) { return text(RUN(o)->device.arch); }
static value r_device_fp(const void *o) { return text(RUN(o)->device.fingerprint); }
static value r_device_index(const void *o) { return int_(RUN(o)->device.selected); }
static value r_device_bus(const void *o) { return text(RUN(o)->device.pci_bus_id); }
static value r_grid(const void *o) { return uint_(RUN(o)->launch_grid); }
static value r_block(const void *o) { return uint_(RUN(o)->launch_block); }
static value r_seconds(const void *o) { return (value){ .kind = F_REAL, .r = RUN(o)->seconds }; }
static value r_signature(const void *o) { return text(KERNEL_TEXT(signature)); }
static value r_scalars(const void *o) { return text(RUN(o)->scalars); }
static value r_targets(const void *o) { return list(RUN(o)->kernel ? RUN(o)->kernel->targets : NULL); }
static value r_evidence(const void *o)
{
    const tkh_report *r = RUN(o);
    return (value){ .kind = F_LIST, .rows = r->evidence[0], .stride = sizeof r->evidence[0],
        .count = r->evidence_count };
}
static value r_required(const void *o) { return list(RUN(o)->kernel ? RUN(o)->kernel->required_evidence : NULL); }
static value r_obligations(const void *o) { return list(RUN(o)->kernel ? RUN(o)->kernel->obligations : NULL); }
static value r_degradations(const void *o) { return list(RUN(o)->kernel ? RUN(o)->kernel->degradations : NULL); }
static value r_non_claims(const void *o) { return list(RUN(o)->kernel ? RUN(o)->kernel->non_claims : NULL); }

static const field run_fields[] = {
    { "backend", r_backend }, { "status", r_status }, { "message", r_message },
    { "catalog", r_catalog }, { "op", r_op }, { "scalar_type", r_type },
    { "signature", r_signature }, { "kernel_symbol", r_symbol }, { "len", r_len },
    { "scalars", r_scalars }, { "cpu_oracle_mode", r_mode },
    { "cpu_oracle_seed", r_seed }, { "cpu_oracle_checked", r_checked },
    { "cpu_oracle_compared", r_compared }, { "cpu_oracle_projected", r_projected },
    { "cpu_oracle_threshold", r_threshold },
    { "cpu_oracle_matches", r_matches }, { "first_mismatch", r_mismatch },
    { "comparison", r_comparison }, { "compare_rule", r_rule }, { "ulp_bound", r_bound },
    { "abs_tolerance", r_atol }, { "max_ulp_error", r_worst }, { "max_ulp_error_index", r_worst_at },
    { "kernel_source_fingerprint", r_source_fp },
    { "compiler", r_compiler }, { "compiler_fingerprint", r_compiler_fp },
    { "build_fingerprint", r_build_fp }, { "build_command", r_build_cmd },
    { "device_name", r_device }, { "device_arch", r_arch }, { "device_index", r_device_index },
    { "device_pci_bus_id", r_device_bus },
    { "device_capability_fingerprint", r_device_fp }, { "launch_grid", r_grid },
    { "launch_block", r_block }, { "seconds", r_seconds }, { "targets", r_targets },
    { "evidence", r_evidence }, { "required_evidence", r_required },
    { "obligations", r_obligations }, { "semantic_degradations", r_degradations },
    { "non_claims", r_non_claims },
};

#define DEV(r) ((const tkh_device_report *)(r))
static value d_available(const void *o) { return bool_(DEV(o)->available); }
static value d_reason(const void *o) { return text(DEV(o)->reason); }
static value d_platform(const void *o) { return text(DEV(o)->platform); }
static value d_count(const void *o) { return int_(DEV(o)->device_count); }
static value d_selected(const void *o) { return int_(DEV(o)->selected); }
static value d_name(const void *o) { return text(DEV(o)->name); }
static value d_arch(const void *o) { return text(DEV(o)->arch); }
static value d_units(const void *o) { return int_(DEV(o)->compute_units); }
static value d_memory(const void *o) { return uint_(DEV(o)->global_memory); }
static value d_runtime(const void *o) { return int_(DEV(o)->runtime_version); }
static value d_driver(const void *o) { return int_(DEV(o)->driver_version); }
static value d_fp(const void *o) { return text(DEV(o)->fingerprint); }
static value d_bus(const void *o) { return text(DEV(o)->pci_bus_id); }

static const field device_fields[] = {
    { "available", d_available }, { "reason", d_reason }, { "platform", d_platform },
    { "device_count", d_count }, { "selected_device", d_selected }, { "name", d_name },
    { "arch", d_arch }, { "compute_units", d_units }, { "global_memory_bytes", d_memory },
    { "runtime_version", d_runtime }, { "driver_version", d_driver },
    { "capability_fingerprint", d_fp }, { "pci_bus_id", d_bus },
};

/* ---- the walks ---- */

/* The length of the well-formed UTF-8 sequence at p (2 to 4 bytes; RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), or 0. */
static size_t utf8_length(const unsigned char *p)
{
    unsigned char lo = 0x80, hi = 0xBF; /* the range of the second byte */
    size_t len;
    if (p[0] >= 0xC2 && p[0] <= 0xDF)
        len = 2;
    else if (p[0] >= 0xE0 && p[0] <= 0xEF) {
        len = 3;
        lo = p[0] == 0xE0 ? 0xA0 : 0x80;
        hi = p[0] == 0xED ? 0x9F : 0xBF;
    } else if (p[0] >= 0xF0 && p[0] <= 0xF4) {
        len = 4;
        lo = p[0] == 0xF0 ? 0x90 : 0x80;
        hi = p[0] == 0xF4 ? 0x8F : 0xBF;
    } else
        return 0;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < len; ++i)
        if (p[i] < 0x80 || p[i] > 0xBF) /* also stops at the terminating zero */
            return 0;
    return len;
}

/* Well-formed UTF-8 goes through as it is; control bytes are escaped, and any byte that
 * is not part of well-formed UTF-8 becomes U+FFFD, so the output is always valid JSON. */
static void json_string(sink *s, const char *t)
{
    put(s, "\"");
    for (const unsigned char *p = (const unsigned char *)t; *p; ++p) {
        size_t len;
        if (*p == '"' || *p == '\\')
            put(s, "\\%c", *p);
        else if (*p < 0x20)
            put(s, "\\u%04x", *p);
        else if (*p < 0x80)
            put(s, "%c", *p);
        else if ((len = utf8_length(p)) != 0) {
            put(s, "%.*s", (int)len, (const char *)p);
            p += len - 1;
        } else
            put(s, "\\ufffd");
    }
    put(s, "\"");
}

static void json_scalar(sink *s, const value *v)
{
    switch (v->kind) {
    case F_TEXT: json_string(s, v->text); break;
    case F_UINT: put(s, "%llu", v->u); break;
    case F_INT: put(s, "%lld", v->i); break;
    case F_BOOL: put(s, "%s", v->u ? "true" : "false"); break;
    case F_REAL:
        if (isfinite(v->r))
            put(s, "%.9g", v->r);
        else
            put(s, "null");
        break;
    case F_LIST: break;
    }
}

static void walk_json(sink *s, const field *fields, size_t count, const void *obj)
{
    put(s, "{\n");
    for (size_t f = 0; f < count; ++f) {
        value v = fields[f].get(obj);
        put(s, "  \"%s\": ", fields[f].name);
        if (v.kind == F_LIST) {
            size_t n = list_count(&v);
            put(s, "[");
            for (size_t i = 0; i < n; ++i) {
                put(s, "%s", i ? ", " : "");
                json_string(s, list_item(&v, i));
            }
            put(s, "]");
        } else {
            json_scalar(s, &v);
        }
        put(s, "%s\n", f + 1 < count ? "," : "");
    }
    put(s, "}\n");
}

/* Table cells and list items cannot hold '|' or line breaks unescaped. */
static void md_text(sink *s, const char *t)
{
    for (const char *p = t; *p; ++p) {
        if (*p == '|')
            put(s, "\\|");
        else if (*p == '\n' || *p == '\r')
            put(s, " ");
        else
            put(s, "%c", *p);
    }
}

static void walk_markdown(sink *s, const char *title, const field *fields, size_t count,
    const void *obj)
{
    put(s, "# ");
    md_text(s, title);
    put(s, "\n\n| field | value |\n| --- | --- |\n");
    for (size_t f = 0; f < count; ++f) {
        value v = fields[f].get(obj);
        if (v.kind == F_LIST)
            continue;
        put(s, "| %s | ", fields[f].name);
        if (v.kind == F_TEXT)
            md_text(s, v.text);
        else
            json_scalar(s, &v);
        put(s, " |\n");
    }
    for (size_t f = 0; f < count; ++f) {
        value v = fields[f].get(obj);
        if (v.kind != F_LIST)
            continue;
        size_t n = list_count(&v);
        put(s, "\n## %s\n\n", fields[f].name);
        if (n == 0)
            put(s, "- (none)\n");
        for (size_t i = 0; i < n; ++i) {
            put(s, "- ");
            md_text(s, list_item(&v, i));
            put(s, "\n");
        }
    }
}

static tkh_status finish(const char *fn, sink *s, size_t *needed)
{
    if (needed != NULL)
        *needed = s->len;
    if (s->len >= s->size)
        return tkhi_fail(TKH_ERR_BUFFER_TOO_SMALL, "%s: the text needs %zu bytes, the buffer has %zu",
            fn, s->len + 1, s->size);
    return TKH_OK;
}

static tkh_status start(const char *fn, const void *report, char *buf, size_t size, sink *s)
{
    tkhi_clear_error();
    if (report == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: report is NULL", fn);
    if (buf == NULL && size > 0)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: buf is NULL but size is %zu", fn, size);
    *s = (sink){ buf, size, 0 };
    if (size > 0)
        buf[0] = '\0';
    return TKH_OK;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

tkh_status tkh_report_to_json(const tkh_report *report, char *buf, size_t size, size_t *needed)
{
    sink s;
    tkh_status st = start("tkh_report_to_json", report, buf, size, &s);
    if (st != TKH_OK)
        return st;
    walk_json(&s, run_fields, COUNT(run_fields), report);
    return finish("tkh_report_to_json", &s, needed);
}

tkh_status tkh_report_to_markdown(const tkh_report *report, char *buf, size_t size, size_t *needed)
{
    sink s;
    tkh_status st = start("tkh_report_to_markdown", report, buf, size, &s);
    if (st != TKH_OK)
        return st;
    char title[96];
    snprintf(title, sizeof title, "TokitaiHip run: %s %s", report->kernel ? report->kernel->op : "?",
        report->kernel ? report->kernel->type : "?");
    walk_markdown(&s, title, run_fields, COUNT(run_fields), report);
    return finish("tkh_report_to_markdown", &s, needed);
}

tkh_status tkh_device_report_to_json(const tkh_device_report *report, char *buf, size_t size,
    size_t *needed)
{
    sink s;
    tkh_status st = start("tkh_device_report_to_json", report, buf, size, &s);
    if (st != TKH_OK)
        return st;
    walk_json(&s, device_fields, COUNT(device_fields), report);
    return finish("tkh_device_report_to_json", &s, needed);
}

tkh_status tkh_device_report_to_markdown(const tkh_device_report *report, char *buf, size_t size,
    size_t *needed)
{
    sink s;
    tkh_status st = start("tkh_device_report_to_markdown", report, buf, size, &s);
    if (st != TKH_OK)
        return st;
    walk_markdown(&s, "TokitaiHip device capability report", device_fields, COUNT(device_fields),
        report);
    return finish("tkh_device_report_to_markdown", &s, needed);
}
