/* A call in words: dtypes, shapes and indices. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "plan.h"

static size_t append_int(char *buf, size_t size, size_t len, int64_t v)
{
    return tkhi_append_int(buf, size, len, v < 0, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

const char *tkhi_format_dims(char *buf, size_t size, int ndim, const int64_t *dims)
{
    if (size == 0)
        return buf;
    size_t len = tkhi_append(buf, size, 0, "[", 1);
    for (int d = 0; d < ndim; ++d) {
        if (d > 0)
            len = tkhi_append(buf, size, len, ", ", 2);
        len = append_int(buf, size, len, dims[d]);
    }
    len = tkhi_append(buf, size, len, "]", 1);
    buf[len] = '\0';
    return buf;
}

/* The types' names, each family's integers as a range: "i8..i64, u8..u64, f16, ...". */
static const char *type_names(char *buf, size_t size)
{
    size_t count, len = 0;
    const tkh_scalar_type *types = tkh_scalar_types(&count);
    buf[0] = '\0';
    for (size_t i = 0; i < count && len < size; ++i) {
        size_t last = i;
        if (types[i].family == TKH_SCALAR_SIGNED || types[i].family == TKH_SCALAR_UNSIGNED)
            while (last + 1 < count && types[last + 1].family == types[i].family)
                ++last;
        const int w = last > i ? snprintf(buf + len, size - len, "%s%s..%s", i ? ", " : "", types[i].name,
                types[last].name)
            : snprintf(buf + len, size - len, "%s%s", i ? ", " : "", types[i].name);
        len += w > 0 ? (size_t)w : 0;
        i = last;
    }
    return buf;
}

tkh_status tkh_dlpack_dtype(const char *type, DLDataType *dtype)
{
    tkhi_clear_error();
    if (type == NULL || dtype == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "tkh_dlpack_dtype: %s is NULL", type == NULL ? "type" : "dtype");
    const tkh_scalar_type *t = tkh_scalar_type_find(type);
    if (t != NULL) {
        *dtype = (DLDataType){ t->dlpack_code, t->bits, 1 };
        return TKH_OK;
    }
    char names[128];
    return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "tkh_dlpack_dtype: '%s' is not a type of ours (%s)", type,
        type_names(names, sizeof names));
}

const char *tkhi_dtype_type(DLDataType t)
{
    const tkh_scalar_type *type = tkh_scalar_type_of_dlpack(t);
    return type != NULL ? type->name : NULL;
}

const char *tkhi_dtype_name(DLDataType t, char *buf, size_t size)
{
    const char *type = tkhi_dtype_type(t);
    if (type != NULL)
        snprintf(buf, size, "%s", type);
    else
        snprintf(buf, size, "code %u, %u bits, %u lanes", (unsigned)t.code, (unsigned)t.bits, (unsigned)t.lanes);
    return buf;
}


const char *tkhi_format_index(const tkhi_call *c, int64_t linear, char *buf, size_t size)
{
    const int reduction = c->drops;
    int64_t coord[TKH_MAX_DIMS];
    for (int d = c->ndim - 1; d >= 0; --d) {
        if (reduction && c->reduced_axis[d])
            continue;
        coord[d] = c->shape[d] ? linear % c->shape[d] : 0;
        linear = c->shape[d] ? linear / c->shape[d] : 0;
    }
    if (size == 0)
        return buf;
    size_t len = tkhi_append(buf, size, 0, "[", 1);
    for (int d = 0; d < c->ndim; ++d) {
        if (d > 0)
            len = tkhi_append(buf, size, len, ", ", 2);
        len = reduction && c->reduced_axis[d] ? tkhi_append(buf, size, len, ":", 1) : append_int(buf, size, len, coord[d]);
    }
    len = tkhi_append(buf, size, len, "]", 1);
    buf[len] = '\0';
    return buf;
}

