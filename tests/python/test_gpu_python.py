"""On a GPU: every op of the core catalog through NumPy arrays (the host path, oracle-checked),
torch tensors (the device path with the device oracle, against torch's CPU tensors on the host
path, bf16 included) and CuPy arrays, compared with NumPy and torch where a reference is
listed here; the rest by the oracle's verdict alone. Run as a script
(ctest): exit 77, skipped, without a device."""
import sys

import numpy as np
import pytest

import tokitai_hip as th

HAS_DEVICE = th.device_report()["available"]
pytestmark = pytest.mark.skipif(not HAS_DEVICE, reason="no usable GPU")
rng = np.random.default_rng(36)
NP = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8, "u16": np.uint16,
      "u32": np.uint32, "u64": np.uint64, "f16": np.float16, "f32": np.float32, "f64": np.float64, "bool": np.bool_}


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _layer_norm(x, weight=None, bias=None, eps=1e-5):
    m = x.mean(-1, keepdims=True)
    y = (x - m) / np.sqrt(((x - m) ** 2).mean(-1, keepdims=True) + eps)
    return y * (1 if weight is None else weight) + (0 if bias is None else bias)


# op -> NumPy reference over float64 (or the type itself for exact integer ops)
REF = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "min": np.minimum, "max": np.maximum,
       "neg": np.negative, "abs": np.abs, "sqrt": np.sqrt, "exp": np.exp, "log": np.log, "sin": np.sin,
       "tanh": np.tanh, "sum": lambda x: x.sum(axis=1), "amax": lambda x: x.max(axis=1),
       "amin": lambda x: x.min(axis=1), "softmax": _softmax, "log_softmax": lambda x: np.log(_softmax(x)),
       "layer_norm": _layer_norm, "rms_norm": lambda x, eps=1e-5: x / np.sqrt((x * x).mean(-1, keepdims=True) + eps),
       "matmul": np.matmul, "linear": lambda x, w: x @ w.T}


def inputs(fn, k, shape=(33, 65)):
    op = fn.op
    arrays = []
    for i, name in enumerate(op.in_names):
        t = k.inputs[i].type.decode()
        if name in op.optional:
            arrays.append(None)
            continue
        s = shape
        if op.kind == 3 and i == 1:  # b: [k, n], or [n, k] for linear's weight
            s = (17, 65) if k.b_nk else (65, 17)
        if t == "bool":
            arrays.append(rng.integers(0, 2, s).astype(np.bool_))
        elif t.startswith(("i", "u")):
            arrays.append(rng.integers(0, 100, s).astype(NP[t]))
        else:
            x = rng.uniform(0.5, 2.0, s)  # in every math function's domain
            arrays.append(x.astype(NP[t]) if t in NP else x.astype(np.float32))
    scalars = {nm: 1e-5 if op.kind == 2 else 1 for nm in op.sc_names}
    return arrays, scalars


def cases():
    for name, fn in sorted(th.core.ops.items()):
        for kp in fn.op.kernels:
            t = kp.contents.type.decode()
            if "bf16" not in t:  # NumPy has no bf16: the torch case covers it
                yield pytest.param(name, kp, id=f"{name}_{t}")


def call(fn, k, arrays, scalars, **kw):
    args = dict(zip(fn.op.in_names, arrays), **scalars)
    args = {a: v for a, v in args.items() if v is not None}
    if fn.op.needs_dtype:
        args["dtype"] = k.outputs[0].type.decode()
    if fn.op.kind == 1:
        kw["axis"] = 1
    return fn(**args, **kw)


@pytest.mark.parametrize("name,kp", list(cases()))
def test_numpy_host_path(name, kp):
    fn, k = th.core.ops[name], kp.contents
    arrays, scalars = inputs(fn, k)
    out, report = call(fn, k, arrays, scalars, report=True)
    assert report["status"] == "TKH_OK" and report["cpu_oracle_matches"]
    ref = REF.get(name)
    if ref is not None and k.outputs[0].type.decode() in ("f32", "f64"):
        want = ref(*[a.astype(np.float64) for a in arrays if a is not None], **scalars)
        np.testing.assert_allclose(np.asarray(out, np.float64), want, rtol=1e-5, atol=1e-6)


def every_kernel():
    for name, fn in sorted(th.core.ops.items()):
        for kp in fn.op.kernels:
            yield pytest.param(name, kp, id=f"{name}_{kp.contents.type.decode()}")


def as_numpy(x):
    """A host array as NumPy's (torch's bf16 widened to f32, which is exact)."""
    if type(x).__module__.partition(".")[0] == "torch":
        return (x.float() if str(x.dtype) == "torch.bfloat16" else x).numpy()
    return np.asarray(x)


def same(got, want):
    """Bit for bit (NaNs where NaNs), whatever the two arrays' libraries."""
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        np.testing.assert_array_equal(as_numpy(g), as_numpy(w))


@pytest.mark.parametrize("name,kp", list(every_kernel()))
def test_torch_device_path(name, kp):
    """torch tensors of every kernel's types, bf16 included: on the device (the C call's
    attributes, the device oracle) and on the CPU (the host path), bit for bit."""
    torch = pytest.importorskip("torch")
    fn, k = th.core.ops[name], kp.contents
    arrays, scalars = inputs(fn, k)
    types = [k.inputs[i].type.decode() for i in range(len(arrays))]
    cpu = [None if a is None else torch.from_numpy(a).to(torch.bfloat16) if t == "bf16" else torch.from_numpy(a)
           for a, t in zip(arrays, types)]
    dev = th.Context().device_report()["selected_device"]
    ts = [None if a is None else a.to(f"cuda:{dev}") for a in cpu]
    with th.Context(device=dev, device_oracle="full"):
        out = call(fn, k, ts, scalars)
    host = call(fn, k, cpu, scalars)
    same(tuple(o.cpu() for o in out) if isinstance(out, tuple) else out.cpu(), host)
    torch_ref = {"add": torch.add, "mul": torch.mul, "softmax": lambda x: torch.softmax(x, -1),
                 "matmul": torch.matmul, "linear": torch.nn.functional.linear, "sum": lambda x: x.sum(1)}.get(name)
    if torch_ref is not None and k.outputs[0].type.decode() == "f32":
        torch.testing.assert_close(out, torch_ref(*[t for t in ts if t is not None]), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name,kp", list(cases()))
def test_cupy_device_path(name, kp):
    """CuPy arrays (through their capsules, on CuPy's current stream) against the host path."""
    cupy = pytest.importorskip("cupy")
    fn, k = th.core.ops[name], kp.contents
    arrays, scalars = inputs(fn, k)
    dev = th.Context().device_report()["selected_device"]
    with cupy.cuda.Device(dev):
        cs = [None if a is None else cupy.asarray(a) for a in arrays]
        with th.Context(device=dev, device_oracle="full"):
            out = call(fn, k, cs, scalars)
    host = call(fn, k, arrays, scalars)
    same(tuple(o.get() for o in out) if isinstance(out, tuple) else out.get(), host)


if __name__ == "__main__":
    if not HAS_DEVICE:
        print("skipped: " + th.device_report()["reason"])
        sys.exit(77)
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]))
