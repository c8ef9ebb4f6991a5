"""TokitaiHip from Python: every op of the core catalog (and of a downstream catalog,
load()) by name, on any array with __dlpack__ (NumPy, torch, CuPy, JAX), each call checked
by the CPU oracle. docs/python.md.

    import tokitai_hip as th
    y = th.softmax(x, axis=-1)
    y, report = th.add(a, b, report=True)
"""
import ctypes as _ctypes
import os as _os

from . import _native, _ops
from ._context import Context, get_default_context, last_report, set_default_context
from ._native import ERRORS as _ERRORS, Error

__all__ = ["Context", "Catalog", "Error", "load", "last_report", "set_default_context",
           "get_default_context", "device_report", "core", "library_path", "extension_path", "version"]
globals().update({cls.__name__: cls for cls in _ERRORS.values()})
__all__ += [cls.__name__ for cls in _ERRORS.values()]

library_path = _native.LIBRARY_PATH
extension_path = _native.EXTENSION_PATH  # the C call's module, or None: calls in Python (docs/python.md)
version = _native.tkh_version_string().decode()


class Catalog:
    """The ops of one registry, as attributes: catalog.add(a, b)."""

    def __init__(self, name, registry, lib):
        self.name, self.registry, self._lib = name, registry, lib  # lib: keeps its code loaded
        self.ops = _ops.functions(registry)
        self.__dict__.update(self.ops)

    def __repr__(self):
        return f"<tokitai_hip catalog {self.name!r}: {len(self.ops)} ops>"


def _catalog(lib, symbol):
    fn = getattr(lib, symbol)
    fn.restype, fn.argtypes = _ctypes.POINTER(_native.Registry), []
    reg = fn()
    if not reg:
        raise Error(f"{symbol} returned NULL")
    return Catalog(reg.contents.name.decode(), reg, lib)


def load(path, registry=None):
    """A downstream catalog (tokitai_hip_add_ops, docs/downstream.md): its ops, as a
    Catalog. registry: the name of the function that returns its registry,
    <prefix>_registry_<name>; found in the library's exported symbols when not given."""
    lib = _ctypes.CDLL(_os.path.abspath(path))
    if registry is None:
        found = _ops.registry_symbols(path)
        if len(found) != 1:
            raise ValueError(f"{path}: {'no' if not found else 'several'} registry functions "
                             f"({', '.join(found)}): pass registry='<prefix>_registry_<name>'")
        registry = found[0]
    return _catalog(lib, registry)


def device_report(device=None):
    """What the runtime sees of a device (tokitai-hip info), as a dict; never raises for
    the lack of a GPU: 'available' is false and 'reason' says why."""
    r = _native.DeviceReport()
    _native.tkh_device_query(-1 if device is None else device, _ctypes.byref(r))
    return _native.to_json("tkh_device_report_to_json", r)


# The core catalog's ops, as module functions (th.add); all of them also under th.core.
try:
    core = _catalog(_native.lib, "tkh_registry_core")
except AttributeError:  # a library without the core catalog (the tests' fake)
    core = None
else:
    for _name, _fn in core.ops.items():
        if _name not in globals():
            globals()[_name] = _fn
            __all__.append(_name)
