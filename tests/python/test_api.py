"""The package against this build's library, without needing a GPU: the registry's
functions and docstrings, argument, dtype and shape errors, NO_DEVICE, DLPack handling."""
import ctypes
import inspect
import os
import subprocess
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
        params = inspect.signature(fn).parameters
        assert {"out", "ctx", "report"} <= set(params)
        positional = [p for p in params if params[p].kind != inspect.Parameter.KEYWORD_ONLY]
        assert positional == (fn.op.order + ["dtype"] * fn.op.needs_dtype)[:len(positional)]


def test_docstrings_say_what_and_how():
    doc = need("softmax").__doc__
    assert doc.startswith("exp(x - m) / sum of exp(x - m)") and "f32" in doc and "error bound" in doc
    assert "axis=-1" in str(inspect.signature(th.softmax))
    ln = need("layer_norm")
    assert "weight: array, optional (absent: 1)" in ln.__doc__ and "eps: scalar" in ln.__doc__
    assert "dtype=None" in str(inspect.signature(need("cast")))


def test_dtype_and_shape_errors_before_any_device():
    add = need("add")
    x = np.ones((2, 3), np.float32)
    with pytest.raises(th.NotFound, match="takes dtypes f32, i64"):
        add(x, np.ones(3, np.int64))
    with pytest.raises(th.InvalidArgument, match=r"of shape \[2\] does not broadcast"):
        add(x, np.ones(2, np.float32))
    with pytest.raises(th.InvalidArgument, match="axis 2 is out of range for tensor in of 2 dimensions"):
        need("sum")(x, axis=2)
    with pytest.raises(th.InvalidArgument, match="axis -2 is given twice"):
        th.sum(x, axis=(0, -2))
    with pytest.raises(TypeError, match="__dlpack__"):
        add(x, [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'rhs'"):
        add(x)
    with pytest.raises(TypeError, match="unexpected keyword argument 'axis'"):
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
    assert is_valid(seen[0], b"dltensor")  # borrowed, not consumed: its destructor gives the tensor back
    assert sys.getrefcount(x) == before + 1  # the capsule's tensor, held by 'seen' alone
    seen.clear()
    assert sys.getrefcount(x) == before


def test_a_library_without_registries_is_refused_by_load():
    with pytest.raises(ValueError, match="no registry functions"):
        th.load(th.library_path)


def test_struct_mirrors_match_the_library():
    checked = th._native.LAYOUT_CHECKED
    assert set(th._native.MIRRORS) <= set(checked)  # every struct's size
    for field in ("DLTensor.byte_offset", "tkh_kernel_info.accumulator", "tkh_tensor_args.stream",
                  "tkh_report.evidence", "tkh_scalar_type.parse", "tkh_device_report.pci_bus_id"):
        assert field in checked
    for cname in th._native.MIRRORS:  # and at least one field of each
        assert any(name.startswith(cname + ".") for name in checked), cname


def test_a_mirror_that_differs_stops_the_import():
    n = th._native

    class Shorter(ctypes.Structure):  # tkh_oracle_policy without its seed
        _fields_ = n.OraclePolicy._fields_[:2]

    with pytest.raises(ImportError) as e:
        n.check_layout({"tkh_oracle_policy": Shorter}, th.library_path)
    assert str(e.value) == (f"tokitai_hip: struct tkh_oracle_policy is {ctypes.sizeof(n.OraclePolicy)} bytes in "
                            f"the library {th.library_path} but {ctypes.sizeof(Shorter)} in this package's ctypes "
                            "mirror (Shorter): install the package and the library from one build")

    class Swapped(ctypes.Structure):  # the same size, samples and mode swapped
        _fields_ = [n.OraclePolicy._fields_[1], n.OraclePolicy._fields_[0], n.OraclePolicy._fields_[2]]

    assert ctypes.sizeof(Swapped) == ctypes.sizeof(n.OraclePolicy)
    with pytest.raises(ImportError, match=r"field tkh_oracle_policy.samples is at byte 8 in the library .* but "
                                          r"at byte 0 in this package's ctypes mirror \(Swapped\)"):
        n.check_layout({"tkh_oracle_policy": Swapped}, th.library_path)
    with pytest.raises(ImportError, match="does not list struct tkh_nothing"):
        n.check_layout({"tkh_nothing": Shorter}, th.library_path)


def test_outputs_shapes_come_from_the_library():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(th.InvalidArgument, match=r"^tkh_tensor_output_shapes: tensors a \[2, 3\] and b \[4, 5\] "
                                                 r"do not multiply: a's k is 3 and b's 4"):
        need("matmul")(x, np.ones((4, 5), np.float32))
    with pytest.raises(th.InvalidArgument, match=r"axis 2 is out of range for tensor x of 2 dimensions"):
        need("softmax")(x, axis=2)


def test_python_scalars_take_the_arrays_type_or_are_refused():
    add = need("add")
    i8 = np.ones(3, np.int8)
    with pytest.raises(th.InvalidArgument, match=r"^add: rhs = 300 is out of range for i8 \(-128 to 127\)$"):
        add(i8, 300)
    with pytest.raises(th.InvalidArgument, match=r"^add: lhs = 2.5 is a Python float where an array of i8 goes: "
                                                 r"expected an int \(there is no type promotion\)$"):
        add(2.5, i8)
    with pytest.raises(th.InvalidArgument, match=r"^add: rhs = -1 is out of range for u8 \(0 to 255\)$"):
        add(np.ones(3, np.uint8), -1)
    with pytest.raises(TypeError, match="expected an array among lhs, rhs, got none"):
        add(1, 2)
    with pytest.raises(th.NotFound, match=r"takes dtypes f32, a Python int, i32"):
        add(np.ones(3, np.float32), 1, out=np.ones(3, np.int32))


def test_scalars_parsed_once_for_each_value_keeping_the_sign():
    op = need("layer_norm").op
    k = next(kp.contents for kp in op.kernels if kp.contents.type.decode() == "f32")
    eps = op._scalars(k, (1e-5,))
    assert op._scalars(k, (1e-5,)) is eps  # the same value: the values parsed before
    assert ctypes.c_float.from_buffer(eps[0][0]).value == np.float32(1e-5)
    zero, negative = op._scalars(k, (0.0,))[0][0], op._scalars(k, (-0.0,))[0][0]
    assert bytes(zero) == b"\0\0\0\0" and bytes(negative) == b"\0\0\0\x80"  # -0.0 == 0.0, but not its bits
    assert op._scalars(k, (np.float32(0.5),)) is not op._scalars(k, (np.float32(0.5),))  # not a Python number


def test_the_c_call_is_used_where_asked():
    """TOKITAI_HIP_EXTENSION names the C call's module: the tests run with this build's (or
    "0" where none was built for this interpreter); one that does not load stops the import."""
    named = os.environ.get("TOKITAI_HIP_EXTENSION")
    fn = next(iter(th.core.ops.values()))
    call = fn.__globals__["_tkh_call"]
    if named == "0":
        assert th.extension_path is None and call == fn.op.call
    else:
        assert th.extension_path == named and type(call).__name__ == "Caller"
    missing = "/nonexistent/_tokitai_hip_call.so"
    bad = subprocess.run([sys.executable, "-c", "import tokitai_hip"], capture_output=True, text=True,
                         env={**os.environ, "TOKITAI_HIP_EXTENSION": missing})
    assert bad.returncode != 0 and f"cannot load the C call {missing}" in bad.stderr
