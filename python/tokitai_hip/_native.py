"""The library through ctypes: where it is, the C structures this package reads, the
prototypes of the entry points it calls, and one exception class per tkh_status."""
import ctypes
import os

c_char_p, c_void_p, c_int, c_uint, c_size_t = ctypes.c_char_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_uint, ctypes.c_size_t
c_double, c_int64, c_uint64 = ctypes.c_double, ctypes.c_int64, ctypes.c_uint64


# DLPack 0.6 (Debian's /usr/include/dlpack/dlpack.h): the unversioned capsule "dltensor".
class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", c_int), ("device_id", c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("device", DLDevice), ("ndim", c_int), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(c_int64)), ("strides", ctypes.POINTER(c_int64)),
                ("byte_offset", c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


# PYFUNCTYPE: a producer's deleter drops Python references (NumPy's, torch's), so it runs
# with the GIL held.
DLDeleter = ctypes.PYFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p), ("deleter", DLDeleter)]


# tokitai_hip/kernel.h
class Operand(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("type", c_char_p), ("size", c_size_t), ("compare_rule", c_char_p),
                ("ulp_bound", c_double), ("abs_tolerance", c_double), ("default_value", c_char_p),
                ("extent", c_char_p)]


_strs = ctypes.POINTER(c_char_p)


class KernelInfo(ctypes.Structure):
    _fields_ = [("catalog", c_char_p), ("op", c_char_p), ("type", c_char_p), ("signature", c_char_p),
                ("symbol", c_char_p), ("shape", c_char_p), ("shape_kind", c_int),
                ("arity", c_uint), ("inputs", ctypes.POINTER(Operand)),
                ("output_count", c_uint), ("outputs", ctypes.POINTER(Operand)),
                ("scalar_count", c_uint), ("scalars", ctypes.POINTER(Operand)),
                ("out_count", c_size_t), ("has_identity", c_int), ("scratch_size", c_size_t),
                ("block", c_uint), ("vector_width", c_uint), ("domain", c_char_p),
                ("representation", c_char_p), ("semantics", c_char_p), ("compare_rule", c_char_p),
                ("ulp_bound", c_double), ("abs_tolerance", c_double), ("comparison", c_char_p),
                ("platform", c_char_p), ("targets", _strs), ("source_fingerprint", c_char_p),
                ("compiler", c_char_p), ("compiler_fingerprint", c_char_p), ("build_fingerprint", c_char_p),
                ("build_command", c_char_p), ("obligations", _strs), ("required_evidence", _strs),
                ("degradations", _strs), ("non_claims", _strs)]
    _fields_ += [(f, c_void_p) for f in ("launch", "check", "fold", "merge", "finish", "launch_plan",
                                          "check_row", "check_product")]
    _fields_ += [("b_nk", c_int), ("projectable", c_int), ("accumulator", c_char_p), ("project_device", c_void_p),
                 ("nearest", c_void_p), ("copies", c_void_p)]


class Registry(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("kernels", ctypes.POINTER(ctypes.POINTER(KernelInfo))),
                ("count", c_size_t)]


class TensorArgs(ctypes.Structure):  # tokitai_hip/tensor.h
    _fields_ = [("inputs", ctypes.POINTER(ctypes.POINTER(DLTensor))), ("input_count", c_uint),
                ("outputs", ctypes.POINTER(ctypes.POINTER(DLTensor))), ("output_count", c_uint),
                ("scalars", ctypes.POINTER(c_void_p)), ("scalar_count", c_uint),
                ("axes", ctypes.POINTER(c_int64)), ("axis_count", c_uint), ("keepdims", c_int),
                ("stream", c_void_p)]


class TensorShape(ctypes.Structure):  # tokitai_hip/tensor.h
    _fields_ = [("ndim", c_int), ("shape", c_int64 * 16)]  # TKH_MAX_DIMS


class ScalarType(ctypes.Structure):  # tokitai_hip/scalar_types.h
    _fields_ = [("name", c_char_p), ("family", c_int), ("dlpack_code", ctypes.c_uint8),
                ("bits", ctypes.c_uint8), ("size", c_size_t), ("stored_as_bits", c_int),
                ("min", c_int64), ("max", c_uint64), ("mantissa", c_int), ("emin", c_int), ("emax", c_int),
                ("format", c_void_p), ("parse", ctypes.CFUNCTYPE(c_int, c_char_p, c_void_p)),
                ("to_double", c_void_p), ("from_double", c_void_p)]


class OraclePolicy(ctypes.Structure):  # tokitai_hip/context.h
    _fields_ = [("mode", c_int), ("samples", c_size_t), ("seed", ctypes.c_ulonglong)]


class DeviceReport(ctypes.Structure):  # tokitai_hip/device.h
    _fields_ = [("available", c_int), ("reason", ctypes.c_char * 256), ("platform", ctypes.c_char * 16),
                ("device_count", c_int), ("selected", c_int), ("name", ctypes.c_char * 128),
                ("arch", ctypes.c_char * 64), ("compute_units", c_int), ("global_memory", c_size_t),
                ("runtime_version", c_int), ("driver_version", c_int), ("fingerprint", ctypes.c_char * 72),
                ("pci_bus_id", ctypes.c_char * 16)]


class Report(ctypes.Structure):  # tokitai_hip/report.h
    _fields_ = [("status", c_int), ("message", ctypes.c_char * 512), ("kernel", c_void_p),
                ("device", DeviceReport), ("len", c_size_t), ("scalars", ctypes.c_char * 256),
                ("oracle_mode", c_int), ("oracle_seed", ctypes.c_ulonglong), ("oracle_checked", c_int),
                ("oracle_compared", c_size_t), ("oracle_matches", c_int), ("oracle_projected", c_size_t),
                ("oracle_threshold", c_double), ("first_mismatch", c_size_t), ("max_ulp_error", c_double),
                ("max_ulp_error_index", c_size_t), ("launch_grid", c_uint), ("launch_block", c_uint),
                ("seconds", c_double), ("evidence_count", c_size_t),
                ("evidence", (ctypes.c_char * 192) * 24)]


def _library_path():
    """TOKITAI_HIP_LIBRARY, else the path `cmake --install` wrote beside this file
    (_install.py, relative to this folder so that the prefix can move), else the loader's
    search path."""
    path = os.environ.get("TOKITAI_HIP_LIBRARY")
    if path:
        return path
    try:
        from ._install import LIBRARY
        return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), LIBRARY))
    except ImportError:
        return "libtokitai_hip.so"


def _open():
    path = _library_path()
    try:
        # RTLD_GLOBAL: a downstream catalog opened later (load()) binds to this copy.
        return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL), path
    except OSError as e:
        raise ImportError(f"tokitai_hip: cannot open the library {path} ({e}); set TOKITAI_HIP_LIBRARY "
                          "to the path of libtokitai_hip.so") from e


lib, LIBRARY_PATH = _open()


def _proto(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype, fn.argtypes = restype, list(argtypes)
    return fn


_P = ctypes.POINTER
tkh_status_name = _proto("tkh_status_name", c_char_p, c_int)
tkh_last_error = _proto("tkh_last_error", c_char_p)
tkh_status_message = _proto("tkh_status_message", c_char_p, c_int)
tkh_context_create = _proto("tkh_context_create", c_int, _P(c_void_p), c_int)
tkh_context_destroy = _proto("tkh_context_destroy", None, c_void_p)
tkh_context_device = _proto("tkh_context_device", _P(DeviceReport), c_void_p)
tkh_context_set_oracle = _proto("tkh_context_set_oracle", c_int, c_void_p, _P(OraclePolicy))
tkh_context_set_device_oracle = _proto("tkh_context_set_device_oracle", c_int, c_void_p, _P(OraclePolicy))
tkh_device_query = _proto("tkh_device_query", c_int, c_int, _P(DeviceReport))
tkh_tensor_call = _proto("tkh_tensor_call", c_int, c_void_p, _P(KernelInfo), _P(TensorArgs), _P(Report))
tkh_tensor_output_shapes = _proto("tkh_tensor_output_shapes", c_int, _P(KernelInfo), _P(TensorArgs), _P(TensorShape))
tkh_scalar_types = _proto("tkh_scalar_types", _P(ScalarType), _P(c_size_t))
tkh_version_string = _proto("tkh_version_string", c_char_p)
for _name, _struct in (("tkh_report_to_json", Report), ("tkh_device_report_to_json", DeviceReport)):
    _proto(_name, c_int, _P(_struct), c_char_p, c_size_t, _P(c_size_t))


# The C structs this package mirrors, by their C names.
MIRRORS = {"DLTensor": DLTensor, "DLManagedTensor": DLManagedTensor, "tkh_operand": Operand,
           "tkh_kernel_info": KernelInfo, "tkh_registry": Registry, "tkh_tensor_args": TensorArgs,
           "tkh_tensor_shape": TensorShape, "tkh_scalar_type": ScalarType, "tkh_oracle_policy": OraclePolicy,
           "tkh_device_report": DeviceReport, "tkh_report": Report}


def check_layout(mirrors, path):
    """Each mirror's size, and the offset of each of its fields that the library lists,
    against the library's own (tkh_abi_layout): a struct changed on one side only stops
    the import, instead of corrupting memory at the first call. Returns what it compared."""
    try:
        layout = _proto("tkh_abi_layout", c_int, c_char_p, _P(c_size_t))
    except AttributeError:
        raise ImportError(f"tokitai_hip: the library {path} has no tkh_abi_layout: it is older than this "
                          "package; install the two from one build") from None
    value, compared = c_size_t(), []
    for cname, mirror in mirrors.items():
        if layout(cname.encode(), ctypes.byref(value)) != 0:
            raise ImportError(f"tokitai_hip: the library {path} does not list struct {cname} "
                              f"({tkh_last_error().decode()}): install the package and the library from one build")
        if value.value != ctypes.sizeof(mirror):
            raise ImportError(f"tokitai_hip: struct {cname} is {value.value} bytes in the library {path} but "
                              f"{ctypes.sizeof(mirror)} in this package's ctypes mirror ({mirror.__name__}): "
                              "install the package and the library from one build")
        compared.append(cname)
        for field in mirror._fields_:
            name = f"{cname}.{field[0]}"
            offset = getattr(mirror, field[0]).offset
            if layout(name.encode(), ctypes.byref(value)) != 0:
                continue  # a field the library does not list
            if value.value != offset:
                raise ImportError(f"tokitai_hip: field {name} is at byte {value.value} in the library {path} "
                                  f"but at byte {offset} in this package's ctypes mirror ({mirror.__name__}): "
                                  "install the package and the library from one build")
            compared.append(name)
    return compared


LAYOUT_CHECKED = check_layout(MIRRORS, LIBRARY_PATH)


def _extension():
    """The C call (python/extension/call.c; docs/python.md), or None: the file that
    TOKITAI_HIP_EXTENSION names ("0": none), else the one installed in this package, else the
    one beside the library (a build tree); built for this interpreter (its EXTENSION_SUFFIXES'
    first, the full ABI tag), else not used."""
    import importlib.machinery
    import importlib.util
    named = os.environ.get("TOKITAI_HIP_EXTENSION")
    if named == "0":
        return None, None
    here, there = os.path.dirname(os.path.abspath(__file__)), os.path.dirname(LIBRARY_PATH)
    found = [named] if named else [p for p in (os.path.join(d, "_tokitai_hip_call" + importlib.machinery.EXTENSION_SUFFIXES[0])
                                               for d in (here, there) if d) if os.path.exists(p)]
    if not found:
        return None, None
    spec = importlib.util.spec_from_file_location("tokitai_hip._tokitai_hip_call", found[0])
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except (ImportError, OSError, AttributeError) as e:
        raise ImportError(f"tokitai_hip: cannot load the C call {found[0]} ({e}); TOKITAI_HIP_EXTENSION=0 "
                          "goes without it") from e
    return module, found[0]


EXTENSION, EXTENSION_PATH = _extension()


def to_json(fn, struct):
    """A report as a dict, through the library's own JSON (tkh_report_to_json)."""
    import json
    needed = c_size_t(0)
    getattr(lib, fn)(ctypes.byref(struct), None, 0, ctypes.byref(needed))
    buf = ctypes.create_string_buffer(needed.value + 1)
    getattr(lib, fn)(ctypes.byref(struct), buf, len(buf), None)
    return json.loads(buf.value.decode("latin-1"))


class Error(Exception):
    """A failed call: .status is the tkh_status value, .status_name its name
    ("TKH_ERR_INVALID_ARGUMENT"), the message the library's (tkh_last_error)."""
    status, status_name = -1, "TKH_STATUS_UNKNOWN"


ERRORS = {}  # status value -> class, one per status of status.h but TKH_OK
for _value in range(1, 256):
    _name = tkh_status_name(_value).decode()
    if _name == "TKH_STATUS_UNKNOWN":
        break
    _cls = "".join(w.capitalize() for w in _name.removeprefix("TKH_ERR_").split("_"))
    ERRORS[_value] = type(_cls, (Error,), {"status": _value, "status_name": _name, "__module__": "tokitai_hip",
                                           "__doc__": f"{_name}: {tkh_status_message(_value).decode()}"})


def error(status, message=None):
    """The exception for a status, with the library's message of the last failure."""
    cls = ERRORS.get(status, Error)
    return cls(message if message is not None else tkh_last_error().decode("utf-8", "replace"))


def check(status):
    if status != 0:
        raise error(status)
