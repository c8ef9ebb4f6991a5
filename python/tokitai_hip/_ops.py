"""Functions built from a registry: one per op, its parameters, kernel choice and docstring
taken from the kernels' own descriptions (tkh_kernel_info), the outputs' shapes from the
library's planner (tkh_tensor_output_shapes)."""
import ctypes
import keyword
import operator
import re

from . import _arrays as a
from . import _context as c
from . import _native as n

_PY = {bool: "bool", int: "int", float: "float"}  # Python scalars that may stand for an array

if n.EXTENSION:  # the C call's entry points and hooks (python/extension/call.c)
    n.EXTENSION.setup(ctypes.cast(n.tkh_tensor_call, ctypes.c_void_p).value,
                      ctypes.cast(n.tkh_tensor_output_shapes, ctypes.c_void_p).value,
                      a.attributes_for, a.current_stream, a.make, c.resolve, n.error, c.last_report)


def _py(name):
    """A parameter's name: the operand's, with '_' after a Python keyword (sum's "in")."""
    name = name.decode()
    return name + "_" if keyword.iskeyword(name) else name


class Op:
    """The kernels of one op in one registry, and how a call reaches one of them."""

    def __init__(self, name, kernels):
        self.name, self.kernels = name, kernels
        k = kernels[0].contents
        self.catalog, self.shape, self.kind = k.catalog.decode(), k.shape.decode(), k.shape_kind
        self.inputs = [k.inputs[i] for i in range(k.arity)]
        self.scalars = [k.scalars[i] for i in range(k.scalar_count)]
        self.outputs = [k.outputs[i].name.decode() for i in range(k.output_count)]
        self.in_names = [_py(o.name) for o in self.inputs]
        self.sc_names = [_py(o.name) for o in self.scalars]
        self.optional = {_py(o.name): o.default_value.decode() for o in self.inputs if o.default_value}
        # The declared order ("scalar f32 alpha, f32 x, ..."): axpby(alpha, x, beta, y).
        decl = k.signature.decode().partition("->")[0]
        order = [_py(item.split()[-1].encode()) for item in decl.split(",") if item.strip()]
        if sorted(order) != sorted(self.in_names + self.sc_names):
            order = self.in_names + self.sc_names
        self.order = order
        types = {}
        for kp in kernels:
            kk = kp.contents
            types.setdefault(tuple(kk.inputs[i].type for i in range(kk.arity)), set()).add(
                tuple(kk.outputs[i].type for i in range(kk.output_count)))
        self.needs_dtype = any(len(v) > 1 for v in types.values())  # cast: the output's type
        self.post = self.kind == 2 and k.out_count == 1  # a normalization's post step drops the axis
        self.cache = {}
        self.parsed = {}  # (kernel, scalars) -> the library's values: _scalars

    def doc(self):
        ks = [kp.contents for kp in self.kernels]
        k = ks[0]
        lines = [k.semantics.decode() + ".", ""]
        what = {0: "elementwise, inputs broadcast by NumPy's rules.",
                1: "a reduction over `axis` (None: every axis; an int or a tuple; (): none), `keepdims` as NumPy's.",
                2: "along one `axis` (default the last)" + (", which the result drops." if self.post else "."),
                3: "a matrix product, batched and broadcast as numpy.matmul."}.get(self.kind, self.shape)
        lines += [f"Catalog {self.catalog!r}; {what}", "",
                  "Types (one kernel each): " + ", ".join(x.type.decode() for x in ks) + "."]
        for name in self.in_names:
            extra = f", optional (absent: {self.optional[name]})" if name in self.optional else ""
            lines.append(f"  {name}: array{extra}")
        for i, name in enumerate(self.sc_names):
            tys = sorted({x.scalars[i].type.decode() for x in ks})
            lines.append(f"  {name}: scalar ({', '.join(tys)})")
        if self.needs_dtype:
            lines.append("  dtype: the output's type (\"bf16\", numpy.float32, torch.float16, ...)")
        lines.append("Returns " + (", ".join(self.outputs) if len(self.outputs) > 1 else self.outputs[0])
                     + ", arrays of the inputs' library and device (or out=, which is written and returned).")
        rules = {}
        for x in ks:
            rule = x.comparison.decode()
            if x.ulp_bound:
                rule = f"{rule} (at most {x.ulp_bound:g} ulps)"
            rules.setdefault(rule, []).append(x.type.decode())
        lines += ["", "Checked: host arrays by the CPU oracle on every call, under the context's policy; "
                  "device arrays only under its device_oracle."]
        lines += [f"  {'all types' if len(rules) == 1 else ', '.join(t)}: {r}" for r, t in rules.items()]
        lines += ["", "ctx: a Context (default: the `with` block's, set_default_context's, or one per device); "
                  "report=True returns (result, report dict); failures raise tokitai_hip.Error subclasses "
                  "named after the status (InvalidArgument, OracleMismatch, NoDevice, ...)."]
        return "\n".join(lines)

    def _choose(self, keys, dtype, out_keys):
        """The kernel for the inputs' dtype keys (None: an optional input left out; "int",
        "float", "bool": a Python scalar, which takes the array operands' type), the output
        type asked for and the outputs' keys."""
        in_types = tuple(k if k is None or isinstance(k, str) else a.key_text(k) for k in keys)
        out_types = None if out_keys is None else tuple(a.key_text(k) for k in out_keys)
        weak = [i for i, k in enumerate(keys) if isinstance(k, str)]
        found = []
        for kp in self.kernels:
            kk = kp.contents
            if all(i in weak or t is None or t == kk.inputs[i].type.decode() for i, t in enumerate(in_types)) \
                    and (dtype is None or kk.outputs[0].type.decode() == dtype) \
                    and (out_types is None or all(t == kk.outputs[i].type.decode() for i, t in enumerate(out_types))):
                found.append(kp)
        arrays = {t for i, t in enumerate(in_types) if t is not None and i not in weak}
        if weak and len(arrays) == 1:  # NumPy 2's weak scalars: the arrays' type where a kernel takes it
            same = [kp for kp in found if all(kp.contents.inputs[i].type.decode() in arrays for i in weak)]
            found = same or found
        if len({tuple(kp.contents.inputs[i].type for i in weak) for kp in found}) > 1:
            raise TypeError(f"{self.name}: the Python scalars for {', '.join(self.in_names[i] for i in weak)} fit "
                            f"several kernels ({', '.join(kp.contents.type.decode() for kp in found)}): pass arrays")
        if len({tuple(kp.contents.outputs[i].type for i in range(kp.contents.output_count)) for kp in found}) > 1:
            raise TypeError(f"{self.name}: several output types take those inputs; give dtype= "
                            f"({', '.join(kp.contents.type.decode() for kp in found)})")
        if not found:
            have = [("NULL" if t is None else f"a Python {t}" if i in weak else t) for i, t in enumerate(in_types)]
            have = ", ".join(have + list(out_types or ()) + ([dtype] if dtype else []))
            raise n.ERRORS[14](f"{self.name}: no kernel of catalog {self.catalog!r} takes dtypes {have}; "
                               f"its kernels: {', '.join(kp.contents.type.decode() for kp in self.kernels)}")
        return found[0]

    def _axes(self, axis):
        """The axes as int64s for the library, which checks them (None: every axis, passed as NULL;
        (): none, an empty array)."""
        if self.kind == 2:
            if not isinstance(axis, int):
                raise TypeError(f"{self.name}: axis must be one int, got {axis!r}")
            return (ctypes.c_int64 * 1)(axis)
        if axis is None:
            return None
        axes = (operator.index(axis),) if not hasattr(axis, "__iter__") else tuple(map(operator.index, axis))
        return (ctypes.c_int64 * len(axes))(*axes)

    def call(self, arrays, scalars, dtype, axis, keepdims, out, ctx, report):
        """One call: what the generated function (_function) passes on, in the op's order."""
        first, numpy_scalars = None, []
        for i, x in enumerate(arrays):
            if x is None or type(x) in _PY:
                continue
            if a.numpy_scalar(x):
                numpy_scalars.append(i)
            elif first is None:
                first = x
        if numpy_scalars:  # arrays of their own types, made like the others
            arrays = list(arrays)
            for i in numpy_scalars:
                arrays[i] = a.from_numpy_scalar(arrays[i], first)
            first = first if first is not None else arrays[numpy_scalars[0]]
        if first is None:
            raise TypeError(f"{self.name}: expected an array among {', '.join(self.in_names)}, got none "
                            "(a Python scalar takes the type of the array operands)")
        dev = a.device_of(first)
        host = dev[0] in a.HOST
        stream, own = (None, False) if host else a.current_stream(first, dev[1])
        # what __dlpack__ orders an array on: nothing (-1) for the arrays of first's type where the call
        # runs on their library's current stream, else that stream (DLPack: 1 is CUDA's legacy default)
        sync = None if host else (stream or (1 if dev[0] == a.CUDA else 0))
        first_type = type(first)
        dl_stream = -1 if own else sync
        keep = []  # what owns each DLTensor until the call returns
        try:
            ins, keys, weak = [], [], False
            for x in arrays:
                if x is None or type(x) in _PY:
                    ins.append(None)
                    keys.append(None if x is None else _PY[type(x)])
                    weak |= x is not None
                else:
                    p = a.borrow(x, dl_stream if type(x) is first_type else sync, keep)
                    ins.append(p)
                    keys.append(a.Head.from_address(p).dtype)
            outs = None if out is None else tuple(out) if isinstance(out, (tuple, list)) else (out,)
            out_ptrs = [a.borrow(o, dl_stream if type(o) is first_type else sync, keep) for o in outs] if outs else []
            kp = self._kernel(tuple(keys), a.type_name(dtype), tuple([a.Head.from_address(p).dtype for p in out_ptrs]) or None)
            k = kp.contents
            for i, x in enumerate(arrays if weak else ()):
                if keys[i] is not None and ins[i] is None:  # a Python scalar: a 0-d array of the kernel's type
                    t = k.inputs[i].type.decode()
                    self._weak(self.in_names[i], x, t)
                    ins[i] = a.borrow(a.make(first, (), t, dev, x), dl_stream, keep)
            axes = self._axes(axis) if self.kind in (1, 2) else None
            tls = c._tls
            if outs is None:
                _fill(tls, ins, (), axes, keepdims)
                n.check(n.tkh_tensor_output_shapes(kp, tls.args_ref, tls.shapes))
                shapes = [tuple(s.shape[:s.ndim]) for s in tls.shapes[:k.output_count]]
                outs = tuple(a.make(first, s, k.outputs[o].type.decode(), dev) for o, s in enumerate(shapes))
                out_ptrs = [a.borrow(o, dl_stream, keep) for o in outs]
            parsed = self._scalars(k, scalars) if scalars else (None, None)
            context = c.context_for(ctx, None if host else dev[1])
            handle, fill_report = context.handle, report or context.reports
            _fill(tls, ins, out_ptrs, axes, keepdims)  # after every piece of Python code that could call us
            args = tls.args
            args.scalars, args.scalar_count, args.stream = parsed[1], len(scalars), stream or None
            tls.state.filled = bool(fill_report)
            status = n.tkh_tensor_call(handle, kp, tls.args_ref, tls.report_ref if fill_report else None)
            if status != 0:
                raise n.error(status)
        finally:
            keep.clear()
        result = outs[0] if len(outs) == 1 else outs
        return (result, c.last_report()) if report else result

    def _kernel(self, keys, dtype, out_keys):
        """_choose's kernel, kept for these keys."""
        kp = self.cache.get((keys, dtype, out_keys))
        if kp is None:
            kp = self.cache[keys, dtype, out_keys] = self._choose(keys, dtype, out_keys)
        return kp

    def kernel_for(self, keys, out_keys):
        """The address of the kernel for the arrays' dtype keys (None: an optional input left
        out) and out='s (None: none given), for the C call."""
        return ctypes.addressof(self._kernel(keys, None, out_keys).contents)

    def scalar_pointers(self, kernel, values):
        """_scalars for the kernel at address 'kernel', for the C call."""
        return self._scalars(n.KernelInfo.from_address(kernel), values)

    def _weak(self, name, value, type_):
        """A Python scalar where an array of type_ goes: refused where NumPy 2 would promote
        (a float for an integer array, a number for a bool one), else checked as a scalar."""
        family = a.TYPES[type_].family
        if (family == 3 and type(value) is not bool) or (family in (0, 1) and type(value) is float):
            raise n.ERRORS[1](f"{self.name}: {name} = {value!r} is a Python {type(value).__name__} where an array of "
                              f"{type_} goes: expected {'True or False' if family == 3 else 'an int'} "
                              "(there is no type promotion)")
        self._scalar_text(name, value, type_)

    def _scalars(self, k, values):
        """The scalars as the library's values for kernel k, and an array of their addresses:
        parsed once for each set of Python numbers (a float by its bits, so that -0.0 is not
        0.0; at most 1024 sets kept), other values (NumPy scalars, ...) on every call."""
        key = (ctypes.addressof(k), tuple((type(v), v.hex() if type(v) is float else v) for v in values)) \
            if all(type(v) in _PY for v in values) else None
        bufs = self.parsed.get(key) if key is not None else None
        if bufs is None:
            bufs = [self._scalar_text(k.scalars[i].name.decode(), v, k.scalars[i].type.decode())
                    for i, v in enumerate(values)]
            bufs = (bufs, (ctypes.c_void_p * len(bufs))(*map(ctypes.addressof, bufs)))
            if key is not None:
                if len(self.parsed) >= 1024:
                    self.parsed.clear()
                self.parsed[key] = bufs
        return bufs

    def _scalar_text(self, name, value, type_):
        """value (a Python number) as type_, by the library's own parser for it."""
        row = a.TYPES[type_]
        if row.family == 3:
            text = "true" if value is True else "false" if value is False else str(value)
        elif row.family == 2:
            text = repr(float(value))
        else:
            text = str(int(value)) if float(value).is_integer() else str(value)
        buf = (ctypes.c_char * row.size)()
        status = row.parse(text.encode(), ctypes.addressof(buf))
        if status and row.family in (0, 1):  # an unsigned type's parser refuses '-' as no value
            raise n.ERRORS[1](f"{self.name}: {name} = {value!r} is out of range for {type_} ({row.min} to {row.max})")
        if status:
            why = "is out of range for" if status == 2 else "is not a value of"
            raise n.ERRORS[1](f"{self.name}: {name} = {value!r} {why} {type_}")
        return buf


def _fill(tls, ins, outs, axes, keepdims):
    """The thread's tensor arguments: inputs and outputs (DLTensor addresses), axes, keepdims."""
    args = tls.args
    for i, p in enumerate(ins):
        tls.inputs[i] = p
    for i, p in enumerate(outs):
        tls.outputs[i] = p
    args.input_count, args.output_count = len(ins), len(outs)
    args.axes, args.axis_count, args.keepdims = axes, len(axes) if axes is not None else 0, bool(keepdims)


def functions(registry):
    """{op name: function} for every op of a tkh_registry."""
    by_op = {}
    r = registry.contents
    for i in range(r.count):
        by_op.setdefault(r.kernels[i].contents.op.decode(), []).append(r.kernels[i])
    return {name: _function(Op(name, kernels)) for name, kernels in by_op.items()}


def _function(op):
    """The op's function, with its real parameter list (so that Python itself binds the
    arguments and words the TypeErrors): the operands in declared order, keyword-only from
    the first optional one, then dtype, axis and keepdims where they apply, out, ctx, report."""
    pos, kw, optional_seen = [], [], False
    for name in op.order:
        optional_seen |= name in op.optional
        (kw if optional_seen else pos).append(f"{name}=None" if name in op.optional else name)
    if op.needs_dtype:
        (kw if optional_seen else pos).append("dtype=None")
    kw += {1: ["axis=None", "keepdims=False"], 2: ["axis=-1"]}.get(op.kind, [])
    kw += ["out=None", "ctx=None", "report=False"]
    names = op.in_names + op.sc_names
    bad = [x for x in names if not x.isidentifier() or x in ("dtype", "axis", "keepdims", "out", "ctx", "report")]
    if bad:
        raise ValueError(f"op {op.name!r} of catalog {op.catalog!r}: operand names {bad} cannot be Python parameters")
    tup = lambda xs: "(" + "".join(f"{x}, " for x in xs) + ")"
    fname = f"{op.name}_" if op.name.isidentifier() else "_tkh_op"
    src = (f"def {fname}({', '.join(pos + ['*'] + kw)}):\n"
           f"    return _tkh_call({tup(op.in_names)}, {tup(op.sc_names)}, {'dtype' if op.needs_dtype else 'None'}, "
           f"{'axis' if op.kind in (1, 2) else 'None'}, {'keepdims' if op.kind == 1 else 'False'}, out, ctx, report)\n")
    scope = {"_tkh_call": n.EXTENSION.Caller(op) if n.EXTENSION else op.call}
    exec(src, scope)
    fn = scope[fname]
    fn.__name__ = fn.__qualname__ = op.name
    fn.__module__ = "tokitai_hip" if op.catalog == "core" else f"tokitai_hip.{op.catalog}"
    fn.__doc__, fn.op = op.doc(), op
    return fn


def registry_symbols(path):
    """Exported functions of an ELF shared library named like a catalog's registry
    (<prefix>_registry_<name>, docs/downstream.md), the runtime's own tkh_registry_* aside."""
    import mmap
    import struct
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        if m[:5] != b"\x7fELF\x02":
            return []
        shoff, = struct.unpack_from("<Q", m, 0x28)
        shentsize, shnum = struct.unpack_from("<HH", m, 0x3A)
        secs = [struct.unpack_from("<IIQQQQIIQQ", m, shoff + i * shentsize) for i in range(shnum)]
        names = []
        for sec in secs:
            if sec[1] != 11:  # SHT_DYNSYM
                continue
            stroff = secs[sec[6]][4]
            for j in range(sec[5] // sec[9]):
                st_name, info, _, shndx, _, _ = struct.unpack_from("<IBBHQQ", m, sec[4] + j * sec[9])
                if shndx and info & 0xF == 2:
                    end = m.find(b"\0", stroff + st_name)
                    names.append(m[stroff + st_name:end].decode())
    return [s for s in names if re.fullmatch(r"\w+_registry_\w+", s) and not s.startswith("tkh_registry_")]
