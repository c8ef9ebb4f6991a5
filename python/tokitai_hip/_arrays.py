"""Arrays in and out: DLPack capsules consumed as the protocol asks, our type names for
their dtypes, the array library's current stream, and arrays made by the inputs' library
(outputs, and Python scalars given where an array goes)."""
import ctypes
import sys
import threading

from . import _native as n

HOST = {1, 3, 11}             # kDLCPU, kDLCUDAHost, kDLROCMHost
CUDA, ROCM = 2, 10

_api = ctypes.pythonapi
_get_pointer = _api.PyCapsule_GetPointer
_get_pointer.restype, _get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]


class Head(ctypes.Structure):
    """The start of a DLTensor, its dtype read as one 32-bit key (code, bits, lanes): what
    a call reads of each array to choose the kernel."""
    _fields_ = [("data", ctypes.c_void_p), ("device", n.DLDevice), ("ndim", ctypes.c_int),
                ("dtype", ctypes.c_uint32)]


assert Head.dtype.offset == n.DLTensor.dtype.offset and Head.ndim.offset == n.DLTensor.ndim.offset


def _key(code, bits):
    return ctypes.c_uint32.from_buffer(n.DLDataType(code, bits, 1)).value


# Our types, from the library's own table (tkh_scalar_types): name -> row, and the dtype
# key of each; the array libraries spell them int8 ... bfloat16, bool.
TYPES, BY_KEY, LIB_NAME = {}, {}, {}
_count = ctypes.c_size_t()
_rows = n.tkh_scalar_types(ctypes.byref(_count))
for _i in range(_count.value):
    _r = _rows[_i]
    _name = _r.name.decode()
    TYPES[_name] = _r
    BY_KEY[_key(_r.dlpack_code, _r.bits)] = _name
    LIB_NAME[_name] = {0: f"int{_r.bits}", 1: f"uint{_r.bits}", 3: "bool"}.get(
        _r.family, "bfloat16" if _r.dlpack_code == 4 else f"float{_r.bits}")
OURS = {v: k for k, v in LIB_NAME.items()}


def type_name(dtype):
    """Our name for a dtype given as ours ("bf16"), a library's name or object (numpy.float32,
    torch.bfloat16, "float32"), or None for None."""
    if dtype is None or (isinstance(dtype, str) and dtype in TYPES):
        return dtype
    if isinstance(dtype, type):
        import numpy
        dtype = numpy.dtype(dtype)
    name = dtype if isinstance(dtype, str) else getattr(dtype, "name", None) or str(dtype)
    name = name.rpartition(".")[2]
    if name in OURS:
        return OURS[name]
    raise n.ERRORS[1](f"dtype {dtype!r} is no type of ours: expected one of {', '.join(TYPES)}")


def key_text(key):
    """Our name for a dtype key, or a description of what is no type of ours."""
    if key in BY_KEY:
        return BY_KEY[key]
    dt = n.DLDataType.from_buffer(ctypes.c_uint32(key))
    return f"DLPack code {dt.code}, {dt.bits} bits, {dt.lanes} lanes"


def library(obj):
    return type(obj).__module__.partition(".")[0]


def current_stream(obj, index):
    """The stream a call on obj (on device 'index') is enqueued on, as a pointer (0: the
    default), and whether it is obj's library's current stream: torch's and CuPy's, whose
    arrays are then ordered by the stream itself (their __dlpack__ is asked for no
    synchronization, stream=-1, which spares torch an event and a wait on every call)."""
    spec = attributes_for(type(obj))
    if spec is not None and spec.stream is not None:
        return spec.stream(index), True
    if library(obj) == "cupy":
        import cupy
        with cupy.cuda.Device(index):
            return cupy.cuda.get_current_stream().ptr, True
    return 0, False  # JAX and others: the default stream, which __dlpack__(stream=) orders them on


class Attributes:
    """How arrays of one type are described from their attributes instead of a DLPack capsule,
    where no synchronization is asked: torch.Tensor's attributes as torch.to_dlpack reads them
    (data_ptr(), shape, stride() in elements, dtype, get_device(): -1 on the CPU), and whether
    DLPack would export the array as it is (requires_grad, layout, is_conj(), is_neg()).
    keys: {the library's dtype object: our dtype key}; strided: the layout of a strided array;
    gpu: the DLPack device type of its GPU arrays; stream(index): the library's current stream
    there, as a pointer (None: current_stream's rules); empty(shape, our type name, like): a new
    array on like's device (None: MAKERS). The C call (docs/python.md) reads the same fields."""

    def __init__(self, keys, strided, gpu, stream=None, empty=None):
        self.keys, self.strided, self.gpu, self.stream, self.empty = keys, strided, gpu, stream, empty

    def describe(self, t):
        """(data address, (DLPack device type, index), shape, strides, our dtype key), or None
        where DLPack would refuse or copy t (it then goes through __dlpack__)."""
        key = self.keys.get(t.dtype)
        if key is None or t.requires_grad or t.layout != self.strided or t.is_conj() or t.is_neg():
            return None
        index = t.get_device()
        return t.data_ptr(), ((self.gpu, index) if index >= 0 else (1, 0)), t.shape, t.stride(), key


# Array types described from their attributes: exact type -> Attributes. torch's is
# registered when attributes_for first meets its tensors.
EXPORTERS = {}


def _torch_attributes():
    import torch
    keys = {getattr(torch, LIB_NAME[name]): _key(row.dlpack_code, row.bits)
            for name, row in TYPES.items() if hasattr(torch, LIB_NAME[name])}
    dtypes = {name: getattr(torch, LIB_NAME[name]) for name in TYPES if hasattr(torch, LIB_NAME[name])}
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None) or (  # 0.5 us against 7 for a Stream object
        lambda index: torch.cuda.current_stream(index).cuda_stream)
    empty = torch.empty
    return Attributes(keys, torch.strided, ROCM if getattr(torch.version, "hip", None) else CUDA,
                      stream=raw, empty=lambda shape, name, like: empty(shape, dtype=dtypes[name], device=like.device))


def attributes_for(tp):
    """The Attributes of an array type, or None (its arrays go through __dlpack__)."""
    spec = EXPORTERS.get(tp)
    if spec is None and tp.__module__.partition(".")[0] == "torch" and tp.__name__ == "Tensor":
        spec = EXPORTERS[tp] = _torch_attributes()
    return spec


class _Slots(threading.local):
    """A thread's DLTensors for the arrays described by EXPORTERS, reused call after call:
    slot i for the array a call borrows i-th (len(keep) then)."""

    def __init__(self):
        self.all = []

    def get(self, i):
        while len(self.all) <= i:
            shape, strides = (ctypes.c_int64 * 16)(), (ctypes.c_int64 * 16)()  # TKH_MAX_DIMS
            t = n.DLTensor(None, n.DLDevice(1, 0), 0, n.DLDataType(0, 0, 1), shape, strides, 0)
            self.all.append((t.device, Head.from_address(ctypes.addressof(t)), shape, strides, ctypes.addressof(t)))
        return self.all[i]


_slots = _Slots()


def _described(obj, d, keep):
    data, device, shape, strides, key = d
    nd = len(shape)
    if nd > 16:
        return None
    dev, head, sh, st, address = _slots.get(len(keep))
    head.data, head.ndim, head.dtype = data or None, nd, key
    dev.device_type, dev.device_id = device
    sh[:nd], st[:nd] = shape, strides
    keep.append(obj)
    return address


def borrow(obj, stream, keep):
    """The address of obj's DLTensor, valid while 'keep' (a list) holds what owns it: obj
    itself where its type has Attributes (no synchronization asked), else the capsule, not
    consumed, so that dropping it calls the producer's deleter (DLPack: a capsule still named
    "dltensor" is freed by its destructor)."""
    if stream is None or stream == -1:
        spec = attributes_for(type(obj))
        d = spec.describe(obj) if spec is not None else None
        if d is not None:
            address = _described(obj, d, keep)
            if address is not None:
                return address
    try:
        capsule = obj.__dlpack__() if stream is None else obj.__dlpack__(stream=stream)
    except AttributeError:
        raise TypeError(f"expected an array with __dlpack__ (NumPy, torch, CuPy, JAX), got {type(obj).__name__}") from None
    except BufferError:
        if library(obj) != "numpy":
            raise
        return _numpy_view(obj, keep)  # NumPy < 2 exports no read-only array (a broadcast_to view)
    keep.append(capsule)
    return _get_pointer(capsule, b"dltensor")  # ctypes raises what it sets, if it fails


def _numpy_view(a, keep):
    name = OURS.get(a.dtype.name)
    if name is None or any(s % a.itemsize for s in a.strides):
        raise n.ERRORS[1](f"NumPy array of dtype {a.dtype} and strides {a.strides}: no type or layout of ours")
    row = TYPES[name]
    shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
    strides = (ctypes.c_int64 * max(a.ndim, 1))(*(s // a.itemsize for s in a.strides))
    t = n.DLTensor(a.ctypes.data or None, n.DLDevice(1, 0), a.ndim, n.DLDataType(row.dlpack_code, row.bits, 1),
                   shape, strides, 0)
    keep.append((a, shape, strides, t))
    return ctypes.addressof(t)


def device_of(obj):
    try:
        return tuple(obj.__dlpack_device__())
    except AttributeError:
        raise TypeError(f"expected an array with __dlpack__ (NumPy, torch, CuPy, JAX), got {type(obj).__name__}") from None


def _numpy(shape, name, like, value):
    import numpy
    if name == "bfloat16":
        try:
            from ml_dtypes import bfloat16 as dt
        except ImportError:
            raise TypeError("NumPy has no bfloat16: pass out= (a torch tensor, an ml_dtypes array)") from None
    else:
        dt = numpy.dtype(name)
    return numpy.empty(shape, dtype=dt) if value is None else numpy.array(value, dtype=dt)


def _torch(shape, name, like, value):
    import torch
    dt = getattr(torch, name)
    if value is None:
        return torch.empty(shape, dtype=dt, device=like.device)
    return torch.full(shape, value, dtype=dt, device=like.device)


def _cupy(shape, name, like, value):
    import cupy
    with cupy.cuda.Device(like.device.id):
        return cupy.empty(shape, dtype=name) if value is None else cupy.full(shape, value, dtype=name)


def _jax(shape, name, like, value):
    # JAX arrays are immutable: a fresh one, written before anyone sees it.
    import jax
    import jax.numpy as jnp
    return jax.device_put(jnp.full(shape, 0 if value is None else value, dtype=getattr(jnp, name)),
                          next(iter(like.devices())))


# How each array library makes an array: make(shape, library dtype name, like, value):
# uninitialized where value is None, else filled with it; on like's device.
MAKERS = {"numpy": _numpy, "torch": _torch, "cupy": _cupy, "jax": _jax, "jaxlib": _jax}


def numpy_scalar(x):
    """Whether x is a NumPy scalar (numpy.float32(2)): an array of its own type and no shape,
    as NumPy types it, but without __dlpack__."""
    numpy = sys.modules.get("numpy")  # none made without NumPy loaded
    return numpy is not None and isinstance(x, numpy.generic)


def from_numpy_scalar(x, like):
    """NumPy scalar x as a 0-d array of its type by the library of 'like' (an array of the
    call; None: a NumPy array)."""
    if like is None:
        import numpy
        return numpy.asarray(x)
    return make(like, (), type_name(x.dtype), device_of(like), x.item())


def make(like, shape, type_, device, value=None):
    """A new array of our type 'type_' and 'shape', made by the library of 'like' on its
    device: empty, or every element 'value' (a Python scalar that fits the type)."""
    spec = attributes_for(type(like))
    if value is None and spec is not None and spec.empty is not None:
        return spec.empty(shape, type_, like)
    maker = MAKERS.get(library(like)) or (_numpy if device[0] in HOST else None)
    if maker is None:
        raise TypeError(f"cannot make arrays of {type(like).__name__} on the device: pass out= "
                        "(and arrays, not Python scalars)")
    return maker(shape, LIB_NAME[type_], like, value)
