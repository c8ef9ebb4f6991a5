/* tokitai_hip._tokitai_hip_call: Op.call (python/tokitai_hip/_ops.py) in C, for the calls
 * that pass arrays: their DLTensors, the kernel, the axes, the outputs, the library's call
 * and its error, without a Python frame or a ctypes structure per piece (docs/python.md,
 * "The C call"). Every other call (a Python or NumPy scalar where an array goes, dtype=,
 * axes that are not ints, an array that __dlpack__ refuses) goes to Op.call itself, which
 * gives the same results and the same errors. What needs the array libraries or the
 * package's state (the current stream of arrays without attributes, making an output,
 * the kernel for new dtypes, the scalars, the context, the exception of a status) is asked
 * of the package through the hooks it sets.
 *
 * The library's entry points come as addresses from the package's ctypes handle, so this
 * module works with whichever library the package opened and links to none. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include <dlpack/dlpack.h>

#include "tokitai_hip/tensor.h"

static __typeof__(tkh_tensor_call) *tensor_call;
static __typeof__(tkh_tensor_output_shapes) *output_shapes;

/* The thread's last report and whether the last call filled it: the memory the package's
 * last_report() reads (_context.ThreadState has this layout). */
typedef struct thread_state {
    tkh_report report;
    int filled;
} thread_state;
static _Thread_local thread_state thread;

/* The package's hooks (setup). */
static PyObject *hook_attributes;     /* attributes_for(type) -> Attributes or None */
static PyObject *hook_current_stream; /* current_stream(obj, index) -> (pointer, own) */
static PyObject *hook_make;           /* make(like, shape, type name, device) -> array */
static PyObject *hook_context;        /* resolve(ctx, device index or None) -> (handle, reports) */
static PyObject *hook_error;          /* error(status) -> exception */
static PyObject *hook_last_report;    /* last_report() -> dict */

static PyObject *str_dlpack, *str_dlpack_device, *str_stream, *str_requires_grad, *str_dtype,
    *str_layout, *str_is_conj, *str_is_neg, *str_get_device, *str_data_ptr, *str_shape,
    *str_stride, *str_kernel_for, *str_scalar_pointers;

enum { FAILED = -1, FALL_BACK = 0, DONE = 1 };
enum { HOST_CPU = kDLCPU, GPU_CUDA = kDLCUDA };

/* DLPack 1.2's C exchange API (dlpack.h's DLPackExchangeAPI, spelled here: Debian ships
 * DLPack 0.6), which an array type offers as the PyCapsule "dlpack_exchange_api" in its
 * __dlpack_c_exchange_api__ (torch's since late 2025): a version header, then five functions, of
 * which this module takes two: a borrowed DLTensor of an object (its shape and strides the
 * object's own, valid while it lives) and the library's current stream on a device. */
typedef struct exchange_api {
    struct {
        uint32_t major, minor;
    } version;
    const void *prev_api;
    void *managed_tensor_allocator, *managed_tensor_from_py_object_no_sync, *managed_tensor_to_py_object_no_sync;
    int (*dltensor_from_py_object_no_sync)(void *py_object, DLTensor *out);
    int (*current_work_stream)(int device_type, int32_t device_id, void **out_current_stream);
} exchange_api;

/* Array types described from their attributes as torch.to_dlpack exports them
 * (_arrays.Attributes), looked up by exact type; spec NULL: a type without. Where the type
 * offers the exchange API (api), a DLTensor and the current stream come from it instead of
 * six attributes and a Python call. */
typedef struct described_type {
    PyTypeObject *type;
    PyObject *spec, *keys, *strided, *stream, *empty, *capsule;
    const exchange_api *api;
    int gpu;
} described_type;

/* type's exchange API of major version 1, or NULL (holding its capsule in *capsule). */
static const exchange_api *exchange_api_of(PyTypeObject *type, PyObject **capsule)
{
    *capsule = PyObject_GetAttrString((PyObject *)type, "__dlpack_c_exchange_api__");
    const exchange_api *api = *capsule && PyCapsule_IsValid(*capsule, "dlpack_exchange_api")
        ? PyCapsule_GetPointer(*capsule, "dlpack_exchange_api") : NULL;
    if (!api || api->version.major != 1 || !api->dltensor_from_py_object_no_sync) {
        PyErr_Clear();
        Py_CLEAR(*capsule);
        return NULL;
    }
    return api;
}
static described_type described[8];
static int described_count;

static const described_type *described_for(PyTypeObject *type)
{
    for (int i = 0; i < described_count; ++i)
        if (described[i].type == type)
            return described[i].spec ? &described[i] : NULL;
    if (described_count == (int)(sizeof described / sizeof described[0]))
        return NULL; /* more array types than rows: the rest through __dlpack__ */
    PyObject *spec = PyObject_CallOneArg(hook_attributes, (PyObject *)type);
    if (!spec) {
        PyErr_Clear();
        return NULL;
    }
    described_type row = { .type = type };
    if (spec != Py_None) {
        PyObject *gpu = PyObject_GetAttrString(spec, "gpu");
        row.keys = PyObject_GetAttrString(spec, "keys");
        row.strided = PyObject_GetAttrString(spec, "strided");
        row.stream = PyObject_GetAttrString(spec, "stream");
        row.empty = PyObject_GetAttrString(spec, "empty");
        row.gpu = gpu ? (int)PyLong_AsLong(gpu) : -1;
        Py_XDECREF(gpu);
        if (!row.keys || !PyDict_Check(row.keys) || !row.strided || !row.stream || !row.empty || PyErr_Occurred()) {
            PyErr_Clear();
            Py_XDECREF(row.keys), Py_XDECREF(row.strided), Py_XDECREF(row.stream), Py_XDECREF(row.empty);
            Py_DECREF(spec);
            return NULL; /* not cached: asked again, through __dlpack__ meanwhile */
        }
        row.spec = spec;
        row.api = exchange_api_of(type, &row.capsule);
    } else {
        Py_DECREF(spec);
    }
    Py_INCREF(type);
    described[described_count++] = row;
    return row.spec ? &described[described_count - 1] : NULL;
}

/* One call's arrays: the DLTensors made from attributes, the capsules and objects held
 * until the call returns. */
typedef struct call_state {
    DLTensor tensors[TKH_MAX_ARRAYS];
    int64_t dims[TKH_MAX_ARRAYS][2][TKH_MAX_DIMS];
    unsigned described;
    PyObject *held[TKH_MAX_ARRAYS + TKH_MAX_OUTPUTS + 2];
    unsigned held_count;
} call_state;

static void hold(call_state *st, PyObject *obj) /* steals obj */
{
    st->held[st->held_count++] = obj;
}

static int truth(PyObject *obj, PyObject *name, int *value) /* obj.name, or obj.name() */
{
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v && PyCallable_Check(v)) {
        PyObject *r = PyObject_CallNoArgs(v);
        Py_DECREF(v);
        v = r;
    }
    if (!v)
        return -1;
    *value = PyObject_IsTrue(v);
    Py_DECREF(v);
    return *value < 0 ? -1 : 0;
}

static int int_tuple(PyObject *seq, int64_t *out, int *count)
{
    if (!PyTuple_Check(seq) || PyTuple_GET_SIZE(seq) > TKH_MAX_DIMS)
        return FALL_BACK;
    *count = (int)PyTuple_GET_SIZE(seq);
    for (int i = 0; i < *count; ++i) {
        out[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(seq, i));
        if (out[i] == -1 && PyErr_Occurred())
            return FAILED;
    }
    return DONE;
}

/* A described array's device: (gpu, get_device()), or the CPU for get_device() -1. */
static int described_device(const described_type *d, PyObject *obj, int *type, int *index)
{
    PyObject *i = PyObject_CallMethodNoArgs(obj, str_get_device);
    if (!i)
        return FAILED;
    long v = PyLong_AsLong(i);
    Py_DECREF(i);
    if (v == -1 && PyErr_Occurred())
        return FAILED;
    *type = v >= 0 ? d->gpu : HOST_CPU;
    *index = v >= 0 ? (int)v : 0;
    return DONE;
}

/* Whether DLPack would export obj as it is (DONE): it requires no grad and has no conjugate or
 * negative bit; else FALL_BACK. */
static int exportable(PyObject *obj)
{
    PyObject *const names[3] = { str_requires_grad, str_is_conj, str_is_neg };
    for (int i = 0; i < 3; ++i) {
        int flag;
        if (truth(obj, names[i], &flag) < 0)
            return FAILED;
        if (flag)
            return FALL_BACK;
    }
    return DONE;
}

/* obj's DLTensor from its attributes, as _arrays.Attributes.describe, or from the type's
 * exchange API: FALL_BACK where DLPack would refuse or copy it (the caller then asks
 * __dlpack__, which says why). */
static int describe(const described_type *d, PyObject *obj, call_state *st, DLTensor **out)
{
    int r = exportable(obj);
    if (r != DONE)
        return r;
    DLTensor *t = &st->tensors[st->described];
    if (d->api) { /* the dtype, the layout (sparse refused) and the rest in one call */
        if (d->api->dltensor_from_py_object_no_sync(obj, t) != 0 || t->ndim > TKH_MAX_DIMS) {
            PyErr_Clear();
            return FALL_BACK;
        }
        st->described++;
        *out = t;
        return DONE;
    }
    PyObject *dtype = PyObject_GetAttr(obj, str_dtype);
    if (!dtype)
        return FAILED;
    PyObject *key = PyDict_GetItemWithError(d->keys, dtype); /* borrowed */
    Py_DECREF(dtype);
    if (!key)
        return PyErr_Occurred() ? FAILED : FALL_BACK;
    PyObject *layout = PyObject_GetAttr(obj, str_layout);
    if (!layout)
        return FAILED;
    int strided = PyObject_RichCompareBool(layout, d->strided, Py_EQ);
    Py_DECREF(layout);
    if (strided <= 0)
        return strided < 0 ? FAILED : FALL_BACK;
    int64_t *shape = st->dims[st->described][0], *strides = st->dims[st->described][1];
    int type, index, nd, nd_strides;
    if (described_device(d, obj, &type, &index) != DONE)
        return FAILED;
    PyObject *data = PyObject_CallMethodNoArgs(obj, str_data_ptr);
    if (!data)
        return FAILED;
    void *address = PyLong_AsVoidPtr(data);
    Py_DECREF(data);
    if (!address && PyErr_Occurred())
        return FAILED;
    PyObject *dims = PyObject_GetAttr(obj, str_shape);
    if (!dims)
        return FAILED;
    r = int_tuple(dims, shape, &nd);
    Py_DECREF(dims);
    if (r != DONE)
        return r;
    PyObject *steps = PyObject_CallMethodNoArgs(obj, str_stride);
    if (!steps)
        return FAILED;
    r = int_tuple(steps, strides, &nd_strides);
    Py_DECREF(steps);
    if (r != DONE || nd_strides != nd)
        return r == DONE ? FALL_BACK : r;
    uint32_t k = (uint32_t)PyLong_AsUnsignedLong(key);
    if (PyErr_Occurred())
        return FAILED;
    *t = (DLTensor){ .data = address, .device = { (DLDeviceType)type, index }, .ndim = nd,
                     .shape = shape, .strides = strides };
    memcpy(&t->dtype, &k, sizeof k);
    st->described++;
    *out = t;
    return DONE;
}

/* How an array's __dlpack__ is asked: not at all given (host), or stream=value (-1: no
 * synchronization). */
typedef struct stream_ask {
    int given;
    long long value;
} stream_ask;

/* obj's DLTensor: described where its type has attributes and no synchronization is
 * asked, else from its capsule, held (not consumed) until the call returns. FALL_BACK for
 * what Op.call handles (no __dlpack__, NumPy's read-only arrays). */
static int borrow(PyObject *obj, stream_ask ask, call_state *st, DLTensor **out)
{
    if (!ask.given || ask.value == -1) {
        const described_type *d = described_for(Py_TYPE(obj));
        if (d) {
            int r = describe(d, obj, st, out);
            if (r != FALL_BACK)
                return r;
        }
    }
    PyObject *capsule;
    if (!ask.given) {
        capsule = PyObject_CallMethodNoArgs(obj, str_dlpack);
    } else {
        PyObject *method = PyObject_GetAttr(obj, str_dlpack);
        capsule = NULL;
        if (method) {
            PyObject *kw = Py_BuildValue("{OL}", str_stream, ask.value);
            PyObject *none = PyTuple_New(0);
            capsule = kw && none ? PyObject_Call(method, none, kw) : NULL;
            Py_XDECREF(kw), Py_XDECREF(none), Py_DECREF(method);
        }
    }
    if (!capsule) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError) || PyErr_ExceptionMatches(PyExc_BufferError)) {
            PyErr_Clear();
            return FALL_BACK;
        }
        return FAILED;
    }
    hold(st, capsule);
    *out = PyCapsule_GetPointer(capsule, "dltensor");
    return *out ? DONE : FAILED;
}

/* One op's calls: the Python Op (its call for what this does not take, kernel_for and
 * scalar_pointers) and the kernels already chosen, by the arrays' dtype keys. */
typedef struct cached_kernel {
    uint32_t keys[TKH_MAX_ARRAYS]; /* the inputs' (0: an optional one left out), then out='s */
    unsigned out_count;            /* out= arrays (0: made by the call) */
    const tkh_kernel_info *kernel;
} cached_kernel;

typedef struct caller {
    PyObject_HEAD
    PyObject *op, *fallback;
    int kind; /* shape_kind: 0 elementwise, 1 reduction, 2 normalization, 3 matrix product */
    cached_kernel cache[16];
    unsigned cached, next;
} caller;

static const tkh_kernel_info *kernel_for(caller *self, const uint32_t *keys, unsigned n_in, unsigned n_out)
{
    for (unsigned i = 0; i < self->cached; ++i) {
        const cached_kernel *c = &self->cache[i];
        if (c->out_count == n_out && !memcmp(c->keys, keys, (n_in + n_out) * sizeof keys[0]))
            return c->kernel;
    }
    PyObject *ins = PyTuple_New(n_in), *outs = n_out ? PyTuple_New(n_out) : Py_NewRef(Py_None);
    if (!ins || !outs)
        goto fail;
    for (unsigned i = 0; i < n_in + n_out; ++i) {
        PyObject *v = i < n_in && !keys[i] ? Py_NewRef(Py_None) : PyLong_FromUnsignedLong(keys[i]);
        if (!v)
            goto fail;
        PyTuple_SET_ITEM(i < n_in ? ins : outs, i < n_in ? i : i - n_in, v);
    }
    PyObject *address = PyObject_CallMethodObjArgs(self->op, str_kernel_for, ins, outs, NULL);
    Py_DECREF(ins), Py_DECREF(outs);
    if (!address)
        return NULL;
    const tkh_kernel_info *k = PyLong_AsVoidPtr(address);
    Py_DECREF(address);
    if (!k)
        return NULL;
    cached_kernel *slot = &self->cache[self->cached < 16 ? self->cached++ : self->next++ % 16];
    memcpy(slot->keys, keys, (n_in + n_out) * sizeof keys[0]);
    slot->out_count = n_out;
    slot->kernel = k;
    return k;
fail:
    Py_XDECREF(ins), Py_XDECREF(outs);
    return NULL;
}

/* The axes as the library takes them (kind 1: None -> NULL, an int, a tuple or list of
 * ints; kind 2: one int); FALL_BACK for the rest, which Op.call words. */
static int axes_of(int kind, PyObject *axis, int64_t *axes, unsigned *count, int *none)
{
    *count = 0, *none = 0;
    if (kind != 1 && kind != 2)
        return DONE;
    if (kind == 1 && axis == Py_None) {
        *none = 1;
        return DONE;
    }
    if (PyLong_Check(axis)) {
        int overflow;
        axes[0] = PyLong_AsLongLongAndOverflow(axis, &overflow);
        *count = 1;
        return overflow ? FALL_BACK : axes[0] == -1 && PyErr_Occurred() ? FAILED : DONE;
    }
    if (kind == 2 || !(PyTuple_Check(axis) || PyList_Check(axis)) || PySequence_Fast_GET_SIZE(axis) > TKH_MAX_DIMS)
        return FALL_BACK;
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(axis); ++i) {
        PyObject *a = PySequence_Fast_GET_ITEM(axis, i);
        int overflow;
        if (!PyLong_Check(a))
            return FALL_BACK;
        axes[i] = PyLong_AsLongLongAndOverflow(a, &overflow);
        if (overflow)
            return FALL_BACK;
    }
    *count = (unsigned)PySequence_Fast_GET_SIZE(axis);
    return DONE;
}

/* Raises the package's exception for a failed status (its class names the status, its
 * message is the library's); returns NULL. */
static PyObject *raise_status(tkh_status status)
{
    PyObject *e = PyObject_CallFunction(hook_error, "i", (int)status);
    if (e) {
        PyErr_SetObject((PyObject *)Py_TYPE(e), e);
        Py_DECREF(e);
    }
    return NULL;
}

/* An output the library's planner shaped, made by the first array's library on its device. */
static PyObject *make_output(const described_type *d, PyObject *first, const tkh_tensor_shape *shape,
                             const char *type, PyObject *device)
{
    PyObject *dims = PyTuple_New(shape->ndim), *name = PyUnicode_FromString(type), *made = NULL;
    if (!dims || !name)
        goto done;
    for (int i = 0; i < shape->ndim; ++i) {
        PyObject *v = PyLong_FromLongLong(shape->shape[i]);
        if (!v)
            goto done;
        PyTuple_SET_ITEM(dims, i, v);
    }
    made = d && d->empty != Py_None ? PyObject_CallFunctionObjArgs(d->empty, dims, name, first, NULL)
                                    : PyObject_CallFunctionObjArgs(hook_make, first, dims, name, device, NULL);
done:
    Py_XDECREF(dims), Py_XDECREF(name);
    return made;
}

/* Where a call runs: the first array's device, the stream, and how each array's __dlpack__
 * is asked (Op.call's rules): arrays of the first one's type with no synchronization where
 * the stream is their library's current one, the others ordered on the stream. */
typedef struct placement {
    int type, index, host;
    long long stream;
    stream_ask mine, others;
} placement;

static int place(const described_type *d, PyObject *first, placement *p)
{
    if (d) {
        if (described_device(d, first, &p->type, &p->index) != DONE)
            return FAILED;
    } else {
        PyObject *dev = PyObject_CallMethodNoArgs(first, str_dlpack_device);
        if (!dev) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError))
                return FAILED;
            PyErr_Clear();
            return FALL_BACK; /* a NumPy scalar, or no array at all */
        }
        int ok = PyArg_ParseTuple(dev, "ii", &p->type, &p->index);
        Py_DECREF(dev);
        if (!ok)
            return FAILED;
    }
    p->host = p->type == kDLCPU || p->type == kDLCUDAHost || p->type == kDLROCMHost;
    p->stream = 0;
    int own = 0;
    if (!p->host && d && d->api && d->api->current_work_stream) {
        void *s = NULL;
        if (d->api->current_work_stream(p->type, p->index, &s) != 0) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_RuntimeError, "the array library's current_work_stream (DLPack exchange API) "
                    "failed for device %d of type %d", p->index, p->type);
            return FAILED;
        }
        p->stream = (long long)(intptr_t)s, own = 1;
    } else if (!p->host) {
        int theirs = d && d->stream != Py_None;
        PyObject *s = theirs ? PyObject_CallFunction(d->stream, "i", p->index)
                             : PyObject_CallFunction(hook_current_stream, "Oi", first, p->index);
        if (!s)
            return FAILED;
        if (theirs)
            p->stream = PyLong_AsLongLong(s), own = 1;
        else if (!PyArg_ParseTuple(s, "Lp", &p->stream, &own))
            p->stream = -1;
        Py_DECREF(s);
        if (p->stream == -1 && PyErr_Occurred())
            return FAILED;
    }
    p->others = (stream_ask){ !p->host, p->stream ? p->stream : p->type == GPU_CUDA ? 1 : 0 };
    p->mine = (stream_ask){ !p->host, own ? -1 : p->others.value };
    return DONE;
}

/* Each of the n arrays of 'items' (None: an optional input left out): its DLTensor and dtype key. */
static int borrow_each(PyObject *items, unsigned n, PyObject *first, const placement *p, call_state *st,
                       DLTensor **tensors, uint32_t *keys)
{
    for (unsigned i = 0; i < n; ++i) {
        PyObject *x = PyTuple_GET_ITEM(items, i);
        if (x == Py_None)
            continue;
        int r = borrow(x, Py_TYPE(x) == Py_TYPE(first) ? p->mine : p->others, st, &tensors[i]);
        if (r != DONE)
            return r;
        memcpy(&keys[i], &tensors[i]->dtype, sizeof keys[i]);
    }
    return DONE;
}

/* The outputs, made like the first array, of the shapes the library's planner requires. */
static PyObject *make_outputs(const tkh_kernel_info *k, tkh_tensor_args *args, const described_type *d,
                              PyObject *first, const placement *p, call_state *st, DLTensor **tensors)
{
    tkh_tensor_shape shapes[TKH_MAX_OUTPUTS];
    tkh_status status = output_shapes(k, args, shapes);
    if (status != TKH_OK)
        return raise_status(status);
    PyObject *device = Py_BuildValue("(ii)", p->type, p->index), *outs = device ? PyTuple_New(k->output_count) : NULL;
    if (!outs) {
        Py_XDECREF(device);
        return NULL;
    }
    hold(st, outs);
    for (unsigned o = 0; o < k->output_count; ++o) {
        PyObject *made = make_output(d, first, &shapes[o], k->outputs[o].type, device);
        int r = FAILED;
        if (made) {
            PyTuple_SET_ITEM(outs, o, made);
            r = borrow(made, p->mine, st, &tensors[o]);
        }
        if (r != DONE) {
            if (r == FALL_BACK)
                PyErr_Format(PyExc_TypeError, "an output made for %s has no __dlpack__", k->op);
            Py_DECREF(device);
            return NULL;
        }
    }
    Py_DECREF(device);
    args->output_count = k->output_count;
    return outs;
}

/* A hook's result (stolen), held until the call returns where it is a pair, else NULL with
 * TypeError 'what' (or the hook's own exception). */
static PyObject *held_pair(PyObject *result, const char *what, call_state *st)
{
    if (!result)
        return NULL;
    hold(st, result);
    if (PyTuple_Check(result) && PyTuple_GET_SIZE(result) == 2)
        return result;
    PyErr_SetString(PyExc_TypeError, what);
    return NULL;
}

/* The context's handle and whether calls fill reports (the package's resolve). */
static int context_of(PyObject *ctx, const placement *p, call_state *st, void **handle, int *reports)
{
    PyObject *index = p->host ? Py_NewRef(Py_None) : PyLong_FromLong(p->index);
    PyObject *context = held_pair(index ? PyObject_CallFunctionObjArgs(hook_context, ctx, index, NULL) : NULL,
                                  "the context hook: expected (handle, reports)", st);
    Py_XDECREF(index);
    if (!context)
        return FAILED;
    *handle = PyLong_AsVoidPtr(PyTuple_GET_ITEM(context, 0));
    *reports = PyObject_IsTrue(PyTuple_GET_ITEM(context, 1));
    return (!*handle && PyErr_Occurred()) || *reports < 0 ? FAILED : DONE;
}

/* The scalars as the library's values (the package's scalar_pointers): the buffer of their
 * addresses, held until the call returns. */
static int scalars_of(caller *self, const tkh_kernel_info *k, PyObject *scalars, call_state *st, Py_buffer *pointers)
{
    PyObject *kernel = PyLong_FromVoidPtr((void *)k);
    PyObject *parsed = held_pair(kernel ? PyObject_CallMethodObjArgs(self->op, str_scalar_pointers, kernel, scalars,
                                                                     NULL) : NULL,
                                 "scalar_pointers: expected (values, pointers)", st);
    Py_XDECREF(kernel);
    if (!parsed)
        return FAILED;
    return PyObject_GetBuffer(PyTuple_GET_ITEM(parsed, 1), pointers, PyBUF_SIMPLE) < 0 ? FAILED : DONE;
}

/* Op.call for arrays: DONE with *result set, FALL_BACK (nothing done that shows), or FAILED
 * with the exception set. */
static int call(caller *self, PyObject *const *a, call_state *st, PyObject **result)
{
    PyObject *ins = a[0], *scalars = a[1], *dtype = a[2], *axis = a[3], *keepdims = a[4], *out = a[5],
             *ctx = a[6], *want_report = a[7];
    if (!PyTuple_Check(ins) || !PyTuple_Check(scalars) || dtype != Py_None || PyTuple_GET_SIZE(ins) > TKH_MAX_INPUTS)
        return FALL_BACK;
    unsigned n_in = (unsigned)PyTuple_GET_SIZE(ins), n_out = 0;
    PyObject *first = NULL;
    for (unsigned i = 0; i < n_in; ++i) {
        PyObject *x = PyTuple_GET_ITEM(ins, i);
        if (PyLong_Check(x) || PyFloat_Check(x))
            return FALL_BACK; /* a Python scalar where an array goes (bool is an int) */
        if (x != Py_None && !first)
            first = x;
    }
    if (!first)
        return FALL_BACK;
    const described_type *d = described_for(Py_TYPE(first));
    placement p;
    DLTensor *tensors[TKH_MAX_ARRAYS] = { 0 };
    uint32_t keys[TKH_MAX_ARRAYS] = { 0 };
    int r = place(d, first, &p);
    if (r == DONE)
        r = borrow_each(ins, n_in, first, &p, st, tensors, keys);
    if (r != DONE)
        return r;
    PyObject *outs = NULL;
    if (out != Py_None) {
        outs = PyTuple_Check(out) || PyList_Check(out) ? PySequence_Tuple(out) : PyTuple_Pack(1, out);
        if (!outs)
            return FAILED;
        hold(st, outs);
        n_out = (unsigned)PyTuple_GET_SIZE(outs);
        if (n_out > TKH_MAX_OUTPUTS)
            return FALL_BACK;
        if ((r = borrow_each(outs, n_out, first, &p, st, tensors + n_in, keys + n_in)) != DONE)
            return r;
    }
    int64_t axes[TKH_MAX_DIMS];
    unsigned axis_count;
    int every_axis;
    if ((r = axes_of(self->kind, axis, axes, &axis_count, &every_axis)) != DONE)
        return r;
    const tkh_kernel_info *k = kernel_for(self, keys, n_in, n_out);
    int keep = self->kind == 1 ? PyObject_IsTrue(keepdims) : 0;
    if (!k || keep < 0)
        return FAILED;
    tkh_tensor_args args = {
        .inputs = (const DLTensor *const *)tensors, .input_count = n_in,
        .outputs = (const DLTensor *const *)tensors + n_in, .output_count = n_out,
        .axes = every_axis ? NULL : axes, .axis_count = axis_count, .keepdims = keep,
        .stream = p.host ? NULL : (tkh_stream)(intptr_t)p.stream,
    };
    if (!outs && !(outs = make_outputs(k, &args, d, first, &p, st, tensors + n_in)))
        return FAILED;
    Py_buffer pointers = { 0 }; /* the scalars before the context, as Op.call: a bad value needs no device */
    if (PyTuple_GET_SIZE(scalars)) {
        if (scalars_of(self, k, scalars, st, &pointers) != DONE)
            return FAILED;
        args.scalars = pointers.buf;
        args.scalar_count = (unsigned)PyTuple_GET_SIZE(scalars);
    }
    void *handle;
    int fill;
    if (context_of(ctx, &p, st, &handle, &fill) != DONE || (!fill && (fill = PyObject_IsTrue(want_report)) < 0)) {
        if (pointers.buf)
            PyBuffer_Release(&pointers);
        return FAILED;
    }
    tkh_status status;
    Py_BEGIN_ALLOW_THREADS
    status = tensor_call(handle, k, &args, fill ? &thread.report : NULL);
    Py_END_ALLOW_THREADS
    thread.filled = fill;
    if (pointers.buf)
        PyBuffer_Release(&pointers);
    if (status != TKH_OK) {
        raise_status(status);
        return FAILED;
    }
    PyObject *value = PyTuple_GET_SIZE(outs) == 1 ? PyTuple_GET_ITEM(outs, 0) : outs; /* held */
    if ((r = PyObject_IsTrue(want_report)) <= 0) {
        *result = r < 0 ? NULL : Py_NewRef(value);
    } else {
        PyObject *report = PyObject_CallNoArgs(hook_last_report);
        *result = report ? PyTuple_Pack(2, value, report) : NULL;
        Py_XDECREF(report);
    }
    return *result ? DONE : FAILED;
}

static void release(call_state *st)
{
    for (unsigned i = 0; i < st->held_count; ++i)
        Py_DECREF(st->held[i]);
    st->held_count = 0;
}

static PyObject *caller_call(caller *self, PyObject *args, PyObject *kwargs)
{
    if ((kwargs && PyDict_GET_SIZE(kwargs)) || PyTuple_GET_SIZE(args) != 8) {
        PyErr_SetString(PyExc_TypeError, "Caller: expected (arrays, scalars, dtype, axis, keepdims, out, ctx, report)");
        return NULL;
    }
    if (!tensor_call) {
        PyErr_SetString(PyExc_RuntimeError, "tokitai_hip's C call: setup() was not called");
        return NULL;
    }
    call_state st;
    st.described = st.held_count = 0;
    PyObject *result = NULL;
    int r = call(self, &PyTuple_GET_ITEM(args, 0), &st, &result);
    release(&st);
    if (r == FALL_BACK)
        return PyObject_Call(self->fallback, args, NULL);
    return r == DONE ? result : NULL;
}

static int caller_init(caller *self, PyObject *args, PyObject *kwargs)
{
    PyObject *op;
    static char *names[] = { "op", NULL };
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:Caller", names, &op))
        return -1;
    PyObject *kind_of = PyObject_GetAttrString(op, "kind");
    int kind = kind_of ? (int)PyLong_AsLong(kind_of) : -1;
    Py_XDECREF(kind_of);
    if (PyErr_Occurred())
        return -1;
    PyObject *fallback = PyObject_GetAttrString(op, "call");
    if (!fallback)
        return -1;
    Py_XSETREF(self->op, Py_NewRef(op));
    Py_XSETREF(self->fallback, fallback);
    self->kind = kind;
    self->cached = self->next = 0;
    return 0;
}

static int caller_traverse(caller *self, visitproc visit, void *arg)
{
    Py_VISIT(self->op);
    Py_VISIT(self->fallback);
    return 0;
}

static int caller_clear(caller *self)
{
    Py_CLEAR(self->op);
    Py_CLEAR(self->fallback);
    return 0;
}

static void caller_dealloc(caller *self)
{
    PyObject_GC_UnTrack(self);
    caller_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject caller_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tokitai_hip._tokitai_hip_call.Caller",
    .tp_doc = PyDoc_STR("Caller(op): op.call(arrays, scalars, dtype, axis, keepdims, out, ctx, report) "
                        "in C for arrays (op.kind: its shape); other calls go to op.call."),
    .tp_basicsize = sizeof(caller),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)caller_init,
    .tp_call = (ternaryfunc)caller_call,
    .tp_traverse = (traverseproc)caller_traverse,
    .tp_clear = (inquiry)caller_clear,
    .tp_dealloc = (destructor)caller_dealloc,
};

static PyObject *setup(PyObject *module, PyObject *args)
{
    (void)module;
    unsigned long long call_address, shapes_address;
    PyObject *hooks[6];
    if (!PyArg_ParseTuple(args, "KKOOOOOO:setup", &call_address, &shapes_address, &hooks[0], &hooks[1],
                          &hooks[2], &hooks[3], &hooks[4], &hooks[5]))
        return NULL;
    for (int i = 0; i < 6; ++i)
        if (!PyCallable_Check(hooks[i])) {
            PyErr_Format(PyExc_TypeError, "setup: hook %d is not callable", i);
            return NULL;
        }
    tensor_call = (__typeof__(tensor_call))(uintptr_t)call_address;
    output_shapes = (__typeof__(output_shapes))(uintptr_t)shapes_address;
    PyObject **slots[] = { &hook_attributes, &hook_current_stream, &hook_make, &hook_context, &hook_error,
                           &hook_last_report };
    for (int i = 0; i < 6; ++i)
        Py_XSETREF(*slots[i], Py_NewRef(hooks[i]));
    Py_RETURN_NONE;
}

static PyObject *thread_state_of(PyObject *module, PyObject *unused)
{
    (void)module, (void)unused;
    return Py_BuildValue("(Nn)", PyLong_FromVoidPtr(&thread), (Py_ssize_t)sizeof thread);
}

static PyMethodDef methods[] = {
    { "setup", setup, METH_VARARGS,
      PyDoc_STR("setup(tkh_tensor_call, tkh_tensor_output_shapes, attributes_for, current_stream, make, "
                "context, error, last_report): the library's entry points (addresses) and the package's hooks") },
    { "thread_state", thread_state_of, METH_NOARGS,
      PyDoc_STR("thread_state() -> (address, size) of this thread's report and its 'filled' flag") },
    { NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, .m_name = "_tokitai_hip_call", .m_doc = PyDoc_STR("tokitai_hip's calls in C (docs/python.md)"),
    .m_size = -1, .m_methods = methods,
};

PyMODINIT_FUNC PyInit__tokitai_hip_call(void)
{
    struct { PyObject **slot; const char *text; } names[] = {
        { &str_dlpack, "__dlpack__" }, { &str_dlpack_device, "__dlpack_device__" }, { &str_stream, "stream" },
        { &str_requires_grad, "requires_grad" }, { &str_dtype, "dtype" }, { &str_layout, "layout" },
        { &str_is_conj, "is_conj" }, { &str_is_neg, "is_neg" }, { &str_get_device, "get_device" },
        { &str_data_ptr, "data_ptr" }, { &str_shape, "shape" }, { &str_stride, "stride" },
        { &str_kernel_for, "kernel_for" }, { &str_scalar_pointers, "scalar_pointers" },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (!(*names[i].slot = PyUnicode_InternFromString(names[i].text)))
            return NULL;
    if (PyType_Ready(&caller_type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (m && PyModule_AddObjectRef(m, "Caller", (PyObject *)&caller_type) < 0)
        Py_CLEAR(m);
    return m;
}
