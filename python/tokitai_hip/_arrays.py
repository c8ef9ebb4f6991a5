"""Arrays in and out: DLPack capsules consumed as the protocol asks, our type names for
their dtypes, the array library's current stream, and outputs made by the inputs' library."""
import ctypes

from . import _native as n

HOST = {1, 3, 11}             # kDLCPU, kDLCUDAHost, kDLROCMHost
CUDA, ROCM = 2, 10

_api = ctypes.pythonapi
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]

# Our types, from the library's own table (tkh_scalar_types): name -> row, and the
# DLPack (code, bits) of each; the array libraries spell them int8 ... bfloat16, bool.
TYPES, BY_DLPACK, LIB_NAME = {}, {}, {}
_count = ctypes.c_size_t()
_rows = n.tkh_scalar_types(ctypes.byref(_count))
for _i in range(_count.value):
    _r = _rows[_i]
    _name = _r.name.decode()
    TYPES[_name] = _r
    BY_DLPACK[(_r.dlpack_code, _r.bits)] = _name
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


def dtype_text(dt):
    return BY_DLPACK.get((dt.code, dt.bits)) if dt.lanes == 1 else None


def library(obj):
    return type(obj).__module__.partition(".")[0]


def current_stream(obj, device_type):
    """The array library's current stream on obj's device, as a pointer (0: the default)."""
    lib = library(obj)
    if lib == "torch":
        import torch
        return torch.cuda.current_stream(obj.device).cuda_stream
    if lib == "cupy":
        import cupy
        with cupy.cuda.Device(obj.device.id):
            return cupy.cuda.get_current_stream().ptr
    return 0  # JAX and others: the default stream, which __dlpack__(stream=) orders them on


class Borrowed:
    """One array's DLTensor for the length of a call. release() gives the capsule's tensor
    back through its deleter (the capsule renamed "used_dltensor", so it will not)."""
    __slots__ = ("obj", "managed", "tensor", "keep")

    def __init__(self, obj, stream=None):
        self.obj, self.managed, self.keep = obj, None, None
        try:
            capsule = obj.__dlpack__() if stream is None else obj.__dlpack__(stream=stream)
        except AttributeError:
            raise TypeError(f"expected an array with __dlpack__ (NumPy, torch, CuPy, JAX), got {type(obj).__name__}") from None
        except BufferError:
            if library(obj) != "numpy":
                raise
            self._numpy_view(obj)  # NumPy < 2 exports no read-only array (a broadcast_to view)
            return
        ptr = _api.PyCapsule_GetPointer(capsule, b"dltensor")
        _api.PyCapsule_SetName(capsule, b"used_dltensor")  # ctypes raises what it sets, if it fails
        self.managed = ctypes.cast(ptr, ctypes.POINTER(n.DLManagedTensor))
        self.tensor = ctypes.pointer(self.managed.contents.dl_tensor)

    def _numpy_view(self, a):
        t = n.DLTensor()
        t.data, t.device, t.ndim = a.ctypes.data or None, n.DLDevice(1, 0), a.ndim
        name = OURS.get(a.dtype.name)
        if name is None or any(s % a.itemsize for s in a.strides):
            raise n.ERRORS[1](f"NumPy array of dtype {a.dtype} and strides {a.strides}: no type or layout of ours")
        row = TYPES[name]
        t.dtype = n.DLDataType(row.dlpack_code, row.bits, 1)
        shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
        strides = (ctypes.c_int64 * max(a.ndim, 1))(*(s // a.itemsize for s in a.strides))
        t.shape, t.strides = shape, strides
        self.keep = (shape, strides, t)
        self.tensor = ctypes.pointer(t)

    def release(self):
        m, self.managed = self.managed, None
        if m is not None and m.contents.deleter:
            m.contents.deleter(m)

    @property
    def shape(self):
        t = self.tensor.contents
        return tuple(t.shape[i] for i in range(t.ndim))


def device_of(obj):
    try:
        return tuple(obj.__dlpack_device__())
    except AttributeError:
        raise TypeError(f"expected an array with __dlpack__ (NumPy, torch, CuPy, JAX), got {type(obj).__name__}") from None


def empty(like, shape, type_, device):
    """A new array of our type 'type_' and 'shape', made by the library of 'like' on its device.
    JAX arrays are immutable: a fresh one (jax.numpy.zeros) is written before anyone sees it."""
    lib, name = library(like), LIB_NAME[type_]
    if lib == "torch":
        import torch
        return torch.empty(shape, dtype=getattr(torch, name), device=like.device)
    if lib == "cupy":
        import cupy
        with cupy.cuda.Device(like.device.id):
            return cupy.empty(shape, dtype=name)
    if lib in ("jax", "jaxlib"):
        import jax
        import jax.numpy as jnp
        return jax.device_put(jnp.zeros(shape, dtype=getattr(jnp, name)), next(iter(like.devices())))
    if lib == "numpy" or device[0] in HOST:
        import numpy
        if name == "bfloat16":
            try:
                from ml_dtypes import bfloat16 as dt
            except ImportError:
                raise TypeError("NumPy has no bfloat16: pass out= (a torch tensor, an ml_dtypes array)") from None
        else:
            dt = numpy.dtype(name)
        return numpy.empty(shape, dtype=dt)
    raise TypeError(f"cannot make outputs for {type(like).__name__} arrays on the device: pass out=")
