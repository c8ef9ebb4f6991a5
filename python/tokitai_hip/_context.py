"""Contexts (a device and the oracle's policies), which one a call uses, and the reports."""
import contextvars
import ctypes
import threading

from . import _native as n

_MODES = {"full": 0, "sampled": 1, "off": 2, "projected": 3}


def policy(text):
    """"full", "off", "projected[:SEED]" or "sampled:N[:SEED]" as a tkh_oracle_policy."""
    parts = str(text).split(":")
    mode = _MODES.get(parts[0])
    try:
        nums = [int(p, 0) for p in parts[1:]]
    except ValueError:
        nums = None
    if mode is None or nums is None or len(nums) > 2 or (mode == 1) != (len(nums) >= 1) \
            or (mode in (0, 2) and nums) or (mode == 3 and len(nums) > 1):
        raise ValueError(f"oracle policy {text!r}: expected full, off, projected[:SEED] or sampled:N[:SEED]")
    samples, seed = (nums + [0])[:2] if mode == 1 else (0, nums[0] if nums else 0)
    return n.OraclePolicy(mode, samples, seed)


class Context:
    """A device and how the oracle checks calls on it.

    device: an index, or None for TOKITAI_HIP_DEVICE (or the GPU ctest assigns, else 0).
    oracle: host arrays' policy, "full" (every output), "sampled:N[:SEED]", "projected[:SEED]"
    (matrix products) or "off". device_oracle: device arrays' policy ("off": enqueued and
    returned; "full" or "sampled:N": the call waits and checks them as host calls are).
    reports: every call fills a report (last_report()); False: only calls with report=True,
    which saves the library a few microseconds a call (its evidence lines).
    The library's context is made at the first call, so that making one, or importing
    tokitai_hip, needs no GPU; a call without one raises NoDevice. Use it per call (ctx=),
    for a block (`with th.Context(oracle="off"):`) or for the process (set_default_context).
    """

    def __init__(self, device=None, oracle="full", device_oracle="off", reports=True):
        self._handle, self.device = None, device  # _handle first: close() runs even if a policy is refused
        self._policies = (policy(oracle), policy(device_oracle))
        self.oracle, self.device_oracle, self.reports = oracle, device_oracle, bool(reports)
        self._lock, self._tokens = threading.Lock(), []

    @property
    def handle(self):
        """The tkh_context pointer, made on first use (raises NoDevice, DeviceIndex, ...)."""
        if self._handle is None:
            with self._lock:
                if self._handle is None:
                    h = ctypes.c_void_p()
                    n.check(n.tkh_context_create(ctypes.byref(h), -1 if self.device is None else self.device))
                    try:
                        n.check(n.tkh_context_set_oracle(h, ctypes.byref(self._policies[0])))
                        n.check(n.tkh_context_set_device_oracle(h, ctypes.byref(self._policies[1])))
                    except n.Error:
                        n.tkh_context_destroy(h)
                        raise
                    self._handle = h
        return self._handle

    def device_report(self):
        """The device's report as a dict (tokitai-hip info's JSON)."""
        return n.to_json("tkh_device_report_to_json", n.tkh_context_device(self.handle).contents)

    def close(self):
        h, self._handle = self._handle, None
        if h is not None:
            n.tkh_context_destroy(h)

    __del__ = close

    def __enter__(self):
        self._tokens.append(_current.set(self))
        return self

    def __exit__(self, *exc):
        _current.reset(self._tokens.pop())

    def __repr__(self):
        return (f"Context(device={self.device!r}, oracle={self.oracle!r}, device_oracle={self.device_oracle!r}, "
                f"reports={self.reports!r})")


_current = contextvars.ContextVar("tokitai_hip_context", default=None)
_default = None
_implicit = {}  # device index (None: from the environment) -> Context


def set_default_context(ctx):
    """The context of calls that name none, outside `with` blocks (None: one per device, made
    when first needed, with the full host oracle)."""
    global _default
    _default = ctx


def get_default_context():
    return _current.get() or _default


def context_for(ctx, device):
    """ctx, else the `with` block's, else the default, else the implicit one of the arrays'
    device (None for host arrays: TOKITAI_HIP_DEVICE)."""
    ctx = ctx or _current.get() or _default
    if ctx is None:
        ctx = _implicit.get(device)
        if ctx is None:
            ctx = _implicit.setdefault(device, Context(device))
    return ctx


class ThreadState(ctypes.Structure):
    """A thread's last report and whether its last call filled it (the C call's
    thread_state, when the package has it: both paths then fill the same one)."""
    _fields_ = [("report", n.Report), ("filled", ctypes.c_int)]


if n.EXTENSION and n.EXTENSION.thread_state()[1] != ctypes.sizeof(ThreadState):
    raise ImportError(f"tokitai_hip: the C call {n.EXTENSION_PATH} keeps a thread's report in "
                      f"{n.EXTENSION.thread_state()[1]} bytes, this package in {ctypes.sizeof(ThreadState)}: "
                      "install the two from one build")


def resolve(ctx, device):
    """context_for's context as the C call needs it: (its handle as an int, whether calls fill
    reports)."""
    ctx = context_for(ctx, device)
    return ctx.handle.value, ctx.reports


class _Thread(threading.local):
    """What a thread's calls reuse: its report and whether the last call filled it (state),
    and the call's argument structures (the outputs' shapes, the tensor arguments and their
    arrays)."""

    def __init__(self):
        ext = n.EXTENSION
        self.state = ThreadState.from_address(ext.thread_state()[0]) if ext else ThreadState()
        self.report = self.state.report
        self.report_ref = ctypes.byref(self.report)
        self.shapes = (n.TensorShape * 4)()  # TKH_MAX_OUTPUTS
        self.args = n.TensorArgs()
        self.args_ref = ctypes.byref(self.args)
        self.inputs, self.outputs = (ctypes.c_void_p * 8)(), (ctypes.c_void_p * 4)()  # TKH_MAX_INPUTS, _OUTPUTS
        tensors = ctypes.POINTER(ctypes.POINTER(n.DLTensor))
        self.args.inputs, self.args.outputs = ctypes.cast(self.inputs, tensors), ctypes.cast(self.outputs, tensors)


_tls = _Thread()


def thread():
    return _tls


def last_report():
    """The report of this thread's last call, as a dict (tkh_report_to_json), or None (no
    call yet, or the last one made none: Context(reports=False))."""
    if not _tls.state.filled:
        return None
    return n.to_json("tkh_report_to_json", _tls.report)
