"""The package against this build's library, without needing a GPU: the registry's
functions and docstrings, argument, dtype and shape errors, NO_DEVICE, DLPack handling."""
import ctypes
import sys

import numpy as np
import pytest

import tokitai_hip as th

HAS_DEVICE = th.device_report()["available"]


def need(op):
    if op not in th.core.ops:
        pytest.skip(f"{op} is not in this build's catalog")
    return th.core.ops[op]


def test_one_exception_per_status():
    names = {cls.status_name for cls in th.Error.__subclasses__()}
    assert {"TKH_ERR_INVALID_ARGUMENT", "TKH_ERR_NO_DEVICE", "TKH_ERR_ORACLE_MISMATCH", "TKH_ERR_RUNTIME"} <= names
    assert th.OracleMismatch.status == 13 and th.InvalidArgument.status == 1 and th.NoDevice.status == 5
    assert all(getattr(th, cls.__name__) is cls for cls in th.Error.__subclasses__())


def test_functions_from_the_registry():
    assert th.core.name == "core" and th.core.ops
    for name, fn in th.core.ops.items():
        assert getattr(th, name, None) is fn or name in ("Context", "load")
        assert fn.__name__ == name and "Checked:" in fn.__doc__ and "Types" in fn.__doc__
        params = fn.__signature__.parameters
        assert {"out", "ctx", "report"} <= set(params)


def test_docstrings_say_what_and_how():
    doc = need("softmax").__doc__
    assert doc.startswith("exp(x - m) / sum of exp(x - m)") and "f32" in doc and "error bound" in doc
    assert "axis" in str(th.softmax.__signature__)
    ln = need("layer_norm")
    assert "weight: array, optional (absent: 1)" in ln.__doc__ and "eps: scalar" in ln.__doc__
    assert "dtype" in str(need("cast").__signature__)


def test_dtype_and_shape_errors_before_any_device():
    add = need("add")
    x = np.ones((2, 3), np.float32)
    with pytest.raises(th.NotFound, match="takes dtypes f32, i64"):
        add(x, np.ones(3, np.int64))
    with pytest.raises(th.InvalidArgument, match=r"of shape \[2\] does not broadcast"):
        add(x, np.ones(2, np.float32))
    with pytest.raises(th.InvalidArgument, match="axis 2 is out of range for tensor"):
        need("sum")(x, axis=2)
    with pytest.raises(th.InvalidArgument, match="one axis twice"):
        th.sum(x, axis=(0, -2))
    with pytest.raises(TypeError, match="__dlpack__"):
        add(x, [1.0, 2.0, 3.0])
    with pytest.raises(TypeError):
        add(x)
    with pytest.raises(TypeError):
        add(x, x, axis=0)
    with pytest.raises(TypeError, match="dtype="):
        need("cast")(x)
    with pytest.raises(th.InvalidArgument, match="no type of ours"):
        th.cast(x, "f33")
    with pytest.raises(th.InvalidArgument, match="out of range for i32"):
        need("clamp")(np.ones(3, np.int32), 0, 2**40)


def test_policies_are_checked_when_written():
    for bad in ("sampled", "bogus", "full:3", "sampled:x"):
        with pytest.raises(ValueError):
            th.Context(oracle=bad)
    ctx = th.Context(device=0, oracle="sampled:1000", device_oracle="full")  # no GPU needed yet
    assert "sampled:1000" in repr(ctx)


@pytest.mark.skipif(HAS_DEVICE, reason="a GPU is present")
def test_no_device_raises_cleanly():
    x = np.ones((4, 4), np.float32)
    before = sys.getrefcount(x)
    with pytest.raises(th.NoDevice, match="no .* GPU is usable"):
        need("add")(x, x)
    assert sys.getrefcount(x) == before  # the capsule's tensor was given back
    with pytest.raises(th.NoDevice):
        th.Context().device_report()
    assert th.device_report()["available"] is False


def test_capsules_are_consumed_and_released():
    seen = []

    class Wrapped:
        def __init__(self, a):
            self.a = a

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

        def __dlpack__(self, **kw):
            capsule = self.a.__dlpack__(**kw)
            seen.append(capsule)
            return capsule

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    before = sys.getrefcount(x)
    with pytest.raises(th.NotFound):
        need("add")(Wrapped(x), np.ones(3, np.int32))
    is_valid = ctypes.pythonapi.PyCapsule_IsValid
    is_valid.argtypes, is_valid.restype = [ctypes.py_object, ctypes.c_char_p], ctypes.c_int
    assert is_valid(seen[0], b"used_dltensor")
    seen.clear()
    assert sys.getrefcount(x) == before


def test_a_library_without_registries_is_refused_by_load():
    with pytest.raises(ValueError, match="no registry functions"):
        th.load(th.library_path)
