"""Real calls without a GPU: the package on tests/python/fake_ops.c (the runtime on the
fake HIP runtime, host kernels add f32 and sum i32), compared with NumPy."""
import ctypes
import sys

import numpy as np
import pytest

import tokitai_hip as th

rng = np.random.default_rng(2026)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def test_the_fake_is_the_core_catalog():
    assert th.core.name == "pyfake" and sorted(th.core.ops) == ["add", "sum"]
    assert "lhs + rhs, on the host" in th.add.__doc__


def test_add_broadcast_and_strides_like_numpy():
    a, row, col = f32(3, 4), f32(4), f32(3, 1)
    for x, y in ((a, row), (a, col), (a.T.copy().T, row), (a[::-1, ::2], row[::2]), (a.T, f32(4, 1)),
                 (np.broadcast_to(row, (3, 4)), a), (f32(0, 4), row)):
        np.testing.assert_array_equal(th.add(x, y), x + y)


def test_out_and_in_place():
    a, b = f32(5, 6), f32(6)
    want = a + b
    out = np.empty_like(a)
    assert th.add(a, b, out=out) is out
    np.testing.assert_array_equal(out, want)
    assert th.add(a, b, out=a) is a
    np.testing.assert_array_equal(a, want)
    with pytest.raises(th.InvalidArgument, match="expected the inputs' broadcast shape"):
        th.add(a, b, out=np.empty((6, 5), np.float32))


def test_sum_over_axes():
    x = rng.integers(-1000, 1000, (3, 5, 4), dtype=np.int32)
    for axis, keep in ((None, False), (0, False), ((0, 2), True), (-1, True), ((), False)):
        np.testing.assert_array_equal(th.sum(x, axis=axis, keepdims=keep),
                                      x.sum(axis=axis, keepdims=keep, dtype=np.int32))
    assert th.sum(x).shape == ()


def test_reports_and_policies():
    a, b = f32(64, 64), f32(64)
    y, report = th.add(a, b, report=True)
    assert report == th.last_report()
    assert report["status"] == "TKH_OK" and report["op"] == "add"
    assert report["cpu_oracle_mode"] == "full" and report["cpu_oracle_matches"] is True
    with th.Context(oracle="sampled:10:7"):
        th.add(a, b)
        assert th.last_report()["cpu_oracle_mode"] == "sampled"
    th.add(a, b, ctx=th.Context(oracle="off"))
    assert th.last_report()["cpu_oracle_mode"] == "off"
    ctx = th.Context(oracle="off")
    th.set_default_context(ctx)
    try:
        th.add(a, b)
        assert th.get_default_context() is ctx and th.last_report()["cpu_oracle_mode"] == "off"
    finally:
        th.set_default_context(None)
    assert th.Context().device_report()["name"] == "fake device (host memory)"


def test_oracle_mismatch_names_the_element():
    ctx = th.Context()
    th._native.lib.tkh_context_corrupt_next_output(ctx.handle, ctypes.c_size_t(5), ctypes.c_uint(30))
    with pytest.raises(th.OracleMismatch, match="differs from the CPU oracle") as e:
        th.add(f32(2, 4), f32(4), ctx=ctx)
    assert e.value.status_name == "TKH_ERR_ORACLE_MISMATCH"
    assert th.last_report()["status"] == "TKH_ERR_ORACLE_MISMATCH"


def test_load_a_downstream_catalog():
    cat = th.load(th.library_path)  # its registry found among its exported symbols
    assert cat.name == "pyfake" and set(cat.ops) == {"add", "sum"}
    a, b = f32(2, 3), f32(3)
    np.testing.assert_array_equal(cat.add(a, b), a + b)
    assert th.load(th.library_path, registry="pyfake_registry_pyfake").name == "pyfake"


class OnDevice:
    """A NumPy array posing as device memory (kDLROCM 0): the fake device's memory is host
    memory. Records the stream the consumer asks for."""
    streams = []

    def __init__(self, a):
        self.a = a

    def __dlpack_device__(self):
        return (10, 0)

    def __dlpack__(self, stream=None):
        OnDevice.streams.append(stream)
        capsule = self.a.__dlpack__()
        get = ctypes.pythonapi.PyCapsule_GetPointer
        get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
        th._native.DLManagedTensor.from_address(get(capsule, b"dltensor")).dl_tensor.device.device_type = 10
        return capsule


def test_device_arrays_are_enqueued_and_checked_on_request():
    a, b, out = f32(4, 8), f32(8), np.empty((4, 8), np.float32)
    before = sys.getrefcount(a)
    OnDevice.streams.clear()
    with th.Context(device_oracle="full"):
        th.add(OnDevice(a), OnDevice(b), out=OnDevice(out))
    np.testing.assert_array_equal(out, a + b)
    assert OnDevice.streams == [0, 0, 0]  # ROCm's default stream, as DLPack numbers it
    assert th.last_report()["cpu_oracle_matches"] is True
    assert sys.getrefcount(a) == before
    with pytest.raises(TypeError, match="pass out="):
        th.add(OnDevice(a), OnDevice(b))


def test_device_arrays_in_place_are_checked_against_the_inputs_before():
    a, b = f32(4, 8), f32(8)
    want = a + b
    A = OnDevice(a)
    with th.Context(device_oracle="full"):
        th.add(A, OnDevice(b), out=A)  # a += b: the oracle reads a as it was
    np.testing.assert_array_equal(a, want)
    assert th.last_report()["cpu_oracle_matches"] is True


@pytest.fixture
def on_device_maker(monkeypatch):
    """OnDevice arrays made as the array libraries' are (th._arrays.MAKERS): NumPy arrays
    posing as device memory; records what it made."""
    made = []

    def make(shape, name, like, value):
        arr = OnDevice(np.empty(shape, name) if value is None else np.full(shape, value, name))
        made.append(arr.a)
        return arr

    monkeypatch.setitem(th._arrays.MAKERS, OnDevice.__module__.partition(".")[0], make)
    return made


def test_python_scalars_are_arrays_of_the_operands_type():
    x = f32(3, 4)
    for got, want in ((th.add(x, 2.5), x + np.float32(2.5)), (th.add(3, x), np.float32(3) + x),
                      (th.add(x, True), x + np.float32(1)), (th.add(x, 1e-46), x + np.float32(1e-46))):
        assert got.dtype == np.float32 and got.shape == (3, 4)
        np.testing.assert_array_equal(got, want)
    zero_d = th.add(np.full((), 0.5, np.float32), 0.25)
    assert zero_d.shape == () and zero_d == np.float32(0.75)
    with pytest.raises(TypeError, match="expected an array with __dlpack__"):  # a str is no scalar of ours
        th.add(x, "a")
    with pytest.raises(TypeError, match=r"^sum: expected an array among in_, got none"):  # out= is no operand
        th.sum(2, out=np.empty((), np.int32))


def test_numpy_scalars_are_arrays_of_their_own_type(on_device_maker):
    x, out = f32(3, 4), np.empty((3, 4), np.float32)
    with th.Context(device_oracle="full"):  # made on the device, like the other operands
        th.add(OnDevice(x), np.float32(-2), out=OnDevice(out))
    np.testing.assert_array_equal(out, x - np.float32(2))
    assert on_device_maker[0].shape == () and on_device_maker[0].dtype == np.float32
    np.testing.assert_array_equal(th.add(np.float32(2.5), x), np.float32(2.5) + x)
    both = th.add(np.float32(0.5), np.float32(0.25))
    assert isinstance(both, np.ndarray) and both.shape == () and both == np.float32(0.75)
    with pytest.raises(th.NotFound, match="takes dtypes f32, f64"):  # typed as NumPy types it: no promotion
        th.add(x, np.float64(2))


def test_python_scalars_and_outputs_made_on_the_device(on_device_maker):
    a, out = f32(4, 8), np.empty((4, 8), np.float32)
    OnDevice.streams.clear()
    with th.Context(device_oracle="full"):
        th.add(OnDevice(a), -1.5, out=OnDevice(out))
        y = th.add(OnDevice(a), OnDevice(a[0]))
    np.testing.assert_array_equal(out, a - np.float32(1.5))
    assert on_device_maker[0].shape == () and on_device_maker[0] == np.float32(-1.5)
    assert isinstance(y, OnDevice) and y.a is on_device_maker[1]
    np.testing.assert_array_equal(y.a, a + a[0])
    assert OnDevice.streams == [0, 0, 0] * 2  # every array, the scalar's too, asked for the default stream


def test_outputs_shapes_are_the_planners():
    x = rng.integers(-9, 9, (2, 3, 4), dtype=np.int32)
    assert th.sum(x, axis=(0, 2), keepdims=True).shape == (1, 3, 1)
    assert th.sum(x, axis=-1).shape == (2, 3)
    assert th.add(f32(5, 1, 3), f32(4, 1)).shape == (5, 4, 3)
    with pytest.raises(th.InvalidArgument, match=r"^tkh_tensor_output_shapes: tensor input 1 \(rhs\) of shape "
                                                 r"\[4\] does not broadcast with the inputs before it \(\[5, 3\] "
                                                 r"so far\): dimension 0 is 4, expected 3 or 1$"):
        th.add(f32(5, 3), f32(4))


def test_reports_only_when_asked():
    a, b = f32(8, 8), f32(8)
    th.add(a, b)
    assert th.last_report()["op"] == "add"
    with th.Context(reports=False):
        th.add(a, b)
        assert th.last_report() is None  # not the call's before
        y, report = th.add(a, b, report=True)
        assert report["status"] == "TKH_OK" and th.last_report() == report
        with pytest.raises(th.InvalidArgument, match="expected the inputs' broadcast shape"):
            th.add(a, b, out=np.empty((8, 9), np.float32))
        assert th.last_report() is None


class Described:
    """A NumPy array with torch's attributes (th._arrays.Attributes), on the CPU (index -1) or
    posing as the fake device's memory: counts its __dlpack__ calls, which a described array
    never needs where no synchronization is asked."""
    dlpacks, layout = 0, "strided"

    def __init__(self, a, declined=False, index=-1):
        self.a, self.requires_grad, self.index = a, declined, index  # requires grad: DLPack refuses
        self.shape, self.dtype, self._data = a.shape, a.dtype, a.ctypes.data  # read once, as torch keeps them
        self._strides = tuple(s // a.itemsize for s in a.strides)

    def data_ptr(self):
        return self._data

    def stride(self):
        return self._strides

    def get_device(self):
        return self.index

    def is_conj(self):
        return False

    def is_neg(self):
        return False

    def __dlpack_device__(self):
        return (1, 0) if self.index < 0 else (10, self.index)

    def __dlpack__(self, stream=None):
        Described.dlpacks += 1
        capsule = self.a.__dlpack__()
        if self.index >= 0:
            get = ctypes.pythonapi.PyCapsule_GetPointer
            get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
            th._arrays.n.DLManagedTensor.from_address(get(capsule, b"dltensor")).dl_tensor.device.device_type = 10
        return capsule


class _Version(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


_FROM = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
_STREAM = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p))


class _ExchangeAPI(ctypes.Structure):  # DLPack 1.2's DLPackExchangeAPI
    _fields_ = [("version", _Version), ("prev_api", ctypes.c_void_p), ("managed_tensor_allocator", ctypes.c_void_p),
                ("managed_tensor_from_py_object_no_sync", ctypes.c_void_p),
                ("managed_tensor_to_py_object_no_sync", ctypes.c_void_p),
                ("dltensor_from_py_object_no_sync", _FROM), ("current_work_stream", _STREAM)]


class Exchanged(Described):
    """A Described array whose type offers DLPack 1.2's C exchange API as torch's does
    (__dlpack_c_exchange_api__, the capsule "dlpack_exchange_api"): the C call takes its
    DLTensor and the current stream from it, counted here; refused (-1) where asked."""
    exchanged, streams = 0, []

    def __init__(self, a, declined=False, index=-1, refused=False):
        super().__init__(a, declined, index)
        self.refused = refused


def _dltensor_from(address, out):
    x = ctypes.cast(address, ctypes.py_object).value
    if x.refused:
        return -1
    Exchanged.exchanged += 1
    row = th._arrays.TYPES[th._arrays.OURS[x.a.dtype.name]]
    nd = x.a.ndim
    x.dims = ((ctypes.c_int64 * max(nd, 1))(*x.shape), (ctypes.c_int64 * max(nd, 1))(*x.stride()))  # live with x
    t = th._arrays.n.DLTensor.from_address(out)
    t.data, t.ndim, t.byte_offset = x.data_ptr() or None, nd, 0
    t.device.device_type, t.device.device_id = (1, 0) if x.index < 0 else (10, x.index)
    t.dtype = th._arrays.n.DLDataType(row.dlpack_code, row.bits, 1)
    t.shape, t.strides = (ctypes.cast(d, ctypes.POINTER(ctypes.c_int64)) for d in x.dims)
    return 0


def _current_work_stream(device_type, device_id, out):
    Exchanged.streams.append((device_type, device_id))
    out[0] = None
    return 0


_exchange = _ExchangeAPI(_Version(1, 2), None, None, None, None, _FROM(_dltensor_from),
                         _STREAM(_current_work_stream))
_new_capsule = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(
    ("PyCapsule_New", ctypes.pythonapi))
_capsule_name = ctypes.create_string_buffer(b"dlpack_exchange_api")  # lives as long as the capsule
Exchanged.__dlpack_c_exchange_api__ = _new_capsule(ctypes.addressof(_exchange), ctypes.addressof(_capsule_name), None)


def test_arrays_through_the_exchange_api():
    """Where the C call runs, a type with the exchange API gives each array's DLTensor and the
    stream in one call each (no attribute of the layout, no __dlpack__); what the API refuses
    goes through __dlpack__; the Python call reads the attributes as before."""
    row = th._arrays.TYPES["f32"]
    th._arrays.EXPORTERS[Exchanged] = th._arrays.Attributes(
        {np.dtype(np.float32): th._arrays._key(row.dlpack_code, row.bits)}, "strided", 10, stream=lambda index: 0,
        empty=lambda shape, name, like: Exchanged(np.empty(shape, th._arrays.LIB_NAME[name]), index=like.index))
    c_call = th.extension_path is not None
    Described.dlpacks, Exchanged.exchanged, Exchanged.streams = 0, 0, []
    a, b = f32(5, 8), f32(8, 5).T
    out = np.full((5, 8), np.nan, np.float32)
    with th.Context(oracle="full", device_oracle="full"):
        th.add(Exchanged(a), Exchanged(b), out=Exchanged(out))  # on the host
        np.testing.assert_array_equal(out, a + b)
        assert (Exchanged.exchanged, Exchanged.streams) == ((3, []) if c_call else (0, []))
        y = th.add(Exchanged(a, index=0), Exchanged(b, index=0))  # on the device, the output made
        np.testing.assert_array_equal(y.a, a + b)
        assert th.last_report()["cpu_oracle_matches"] is True
        assert (Exchanged.exchanged, Exchanged.streams) == ((6, [(10, 0)]) if c_call else (0, []))
        assert Described.dlpacks == 0
        th.add(Exchanged(a, refused=True), Exchanged(b), out=Exchanged(out))
        np.testing.assert_array_equal(out, a + b)
        assert Described.dlpacks == (1 if c_call else 0) and Exchanged.exchanged == (8 if c_call else 0)
        th.add(Exchanged(a, True), Exchanged(b), out=Exchanged(out))  # requires grad: never exchanged
        assert Described.dlpacks == (2 if c_call else 1) and Exchanged.exchanged == (10 if c_call else 0)


def test_arrays_described_by_their_attributes():
    row = th._arrays.TYPES["f32"]
    made = []

    def empty(shape, name, like):
        made.append(Described(np.empty(shape, th._arrays.LIB_NAME[name]), index=like.index))
        return made[-1]
    # read at the type's first call (the C call keeps it), so registered once for the session
    th._arrays.EXPORTERS[Described] = th._arrays.Attributes(
        {np.dtype(np.float32): th._arrays._key(row.dlpack_code, row.bits)}, "strided", 10,
        stream=lambda index: 0, empty=empty)
    Described.dlpacks = 0
    a, b = f32(5, 8), f32(8, 5).T  # b a transposed view
    out = np.full((5, 8), np.nan, np.float32)
    with th.Context(oracle="full", device_oracle="full"):
        th.add(Described(a), Described(b), out=Described(out))
        np.testing.assert_array_equal(out, a + b)
        assert th.last_report()["cpu_oracle_matches"] is True
        th.add(Described(a), Described(np.array(2, np.float32)), out=Described(out))  # a 0-d array
        np.testing.assert_array_equal(out, a + np.float32(2))
        y = th.add(Described(a, index=0), Described(b, index=0))  # on the device: made by empty
        assert made == [y] and y.index == 0
        np.testing.assert_array_equal(y.a, a + b)
        assert th.last_report()["cpu_oracle_matches"] is True
        assert Described.dlpacks == 0
        th.add(Described(a, True), Described(b), out=Described(out, True))
        np.testing.assert_array_equal(out, a + b)
        assert Described.dlpacks == 2
        with pytest.raises(th.NotFound, match="no kernel"):  # a dtype the attributes do not know
            th.add(Described(a), Described(a.astype(np.float64)), out=Described(out))
