"""Functions built from a registry: one per op, its parameters, kernel choice, output
shapes and docstring taken from the kernels' own descriptions (tkh_kernel_info)."""
import ctypes
import inspect
import keyword
import re

from . import _arrays as a
from . import _context as c
from . import _native as n

_P = inspect.Parameter
_ARG = ctypes.POINTER(n.DLTensor)


def _strs(p):
    out, i = [], 0
    while p and p[i]:
        out.append(p[i].decode())
        i += 1
    return out


def _broadcast(shapes, names):
    """NumPy's broadcast shape, refused as the library words it."""
    out = []
    for i, (s, name) in enumerate(zip(shapes, names)):
        out = [1] * (len(s) - len(out)) + out
        for d in range(1, len(s) + 1):
            if s[-d] != out[-d] and s[-d] != 1:
                if out[-d] != 1:
                    raise n.ERRORS[1](f"tensor input {i} ({name}) of shape {list(s)} does not broadcast with "
                                      f"the inputs before it ({out} so far): dimension {len(s) - d} is "
                                      f"{s[-d]}, expected {out[-d]} or 1")
                out[-d] = s[-d]
    return tuple(out)


def _axes(axis, ndim, name):
    axes = range(ndim) if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
    if not axes and axis is not None:  # the C API reads no axes as every axis
        raise n.ERRORS[1]("axis=() (reduce nothing) is not supported: pass axis=None for every axis")
    norm = []
    for x in axes:
        if not -ndim <= x < ndim:
            raise n.ERRORS[1](f"axis {x} is out of range for tensor {name} of {ndim} dimensions: "
                              f"expected {-ndim} to {ndim - 1}")
        norm.append(x % ndim)
    if len(set(norm)) != len(norm):
        raise n.ERRORS[1](f"axes {list(axes)} name one axis twice")
    return norm


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
        self.signature = self._signature()

    def _signature(self):
        params, optional_seen = [], False
        for name in self.order:
            optional_seen |= name in self.optional
            kind = _P.KEYWORD_ONLY if optional_seen else _P.POSITIONAL_OR_KEYWORD
            params.append(_P(name, kind, default=None if name in self.optional else _P.empty))
        kw = []
        if self.needs_dtype:
            params.append(_P("dtype", _P.KEYWORD_ONLY if optional_seen else _P.POSITIONAL_OR_KEYWORD, default=None))
        if self.kind == 1:
            kw += [_P("axis", _P.KEYWORD_ONLY, default=None), _P("keepdims", _P.KEYWORD_ONLY, default=False)]
        elif self.kind == 2:
            kw += [_P("axis", _P.KEYWORD_ONLY, default=-1)]
        kw += [_P(p, _P.KEYWORD_ONLY, default=d) for p, d in (("out", None), ("ctx", None), ("report", False))]
        return inspect.Signature(params + kw)

    def doc(self):
        ks = [kp.contents for kp in self.kernels]
        k = ks[0]
        lines = [k.semantics.decode() + ".", ""]
        what = {0: "elementwise, inputs broadcast by NumPy's rules.",
                1: "a reduction over `axis` (None: every axis; an int or a tuple), `keepdims` as NumPy's.",
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

    def kernel(self, in_types, dtype, out_types):
        key = (in_types, dtype, out_types)
        k = self.cache.get(key)
        if k is not None:
            return k
        found = []
        for kp in self.kernels:
            kk = kp.contents
            if all(t is None or t == kk.inputs[i].type.decode() for i, t in enumerate(in_types)) \
                    and (dtype is None or kk.outputs[0].type.decode() == dtype) \
                    and (out_types is None or all(t == kk.outputs[i].type.decode() for i, t in enumerate(out_types))):
                found.append(kp)
        if len({tuple(kp.contents.outputs[i].type for i in range(kp.contents.output_count)) for kp in found}) > 1:
            raise TypeError(f"{self.name}: several output types take those inputs; give dtype= "
                            f"({', '.join(kp.contents.type.decode() for kp in found)})")
        if not found:
            have = ", ".join("NULL" if t is None else t for t in in_types + (out_types or ()) + ((dtype,) if dtype else ()))
            raise n.ERRORS[14](f"{self.name}: no kernel of catalog {self.catalog!r} takes dtypes {have}; "
                               f"its kernels: {', '.join(kp.contents.type.decode() for kp in self.kernels)}")
        self.cache[key] = found[0]
        return found[0]

    def out_shapes(self, k, shapes, axes, keepdims):
        x = shapes[0]
        if self.kind == 0:
            given = [(s, nm) for s, nm in zip(shapes, self.in_names) if s is not None]
            return _broadcast([s for s, _ in given], [nm for _, nm in given])
        if self.kind in (1, 2):
            if self.kind == 2 and not self.post:
                return x
            return tuple(1 if d in axes else s for d, s in enumerate(x) if keepdims or d not in axes)
        sa, sb = list(shapes[0]), list(shapes[1])
        if not sa or not sb:
            raise n.ERRORS[1](f"{self.name}: a and b need at least one dimension, got {sa} and {sb}")
        a1, b1 = len(sa) == 1, len(sb) == 1
        sa = [1] + sa if a1 else sa
        sb = (sb + [1] if not k.b_nk else [1] + sb) if b1 else sb
        batch = _broadcast([sa[:-2], sb[:-2]], self.in_names[:2])
        n_ = sb[-2] if k.b_nk else sb[-1]
        return batch + (() if a1 else (sa[-2],)) + (() if b1 else (n_,))

    def __call__(self, args, kwargs):
        b = self.signature.bind(*args, **kwargs)
        v = b.arguments
        arrays = [v.get(nm) for nm in self.in_names]
        out, report = v.get("out"), v.get("report", False)
        given = [x for x in arrays if x is not None]
        dev = a.device_of(given[0])
        host = dev[0] in a.HOST
        stream = None if host else a.current_stream(given[0], dev[0])
        dl_stream = None if host else (stream or (1 if dev[0] == a.CUDA else 0))  # DLPack: 1 is CUDA's legacy default
        borrowed = []
        try:
            ins = []
            for x in arrays:
                if x is None:
                    ins.append(None)
                    continue
                bx = a.Borrowed(x, dl_stream)
                borrowed.append(bx)
                ins.append(bx)
            in_types = tuple(None if bx is None else a.dtype_text(bx.tensor.contents.dtype) or "?" for bx in ins)
            outs = None if out is None else (tuple(out) if isinstance(out, (tuple, list)) else (out,))
            bouts = [a.Borrowed(o, dl_stream) for o in outs] if outs else []
            borrowed += bouts
            out_types = tuple(a.dtype_text(bo.tensor.contents.dtype) or "?" for bo in bouts) or None
            k = self.kernel(in_types, a.type_name(v.get("dtype")), out_types).contents
            axes, keepdims = None, bool(v.get("keepdims", False))
            if self.kind in (1, 2):
                axis = v.get("axis", -1 if self.kind == 2 else None)
                if self.kind == 2 and not isinstance(axis, int):
                    raise TypeError(f"{self.name}: axis must be one int, got {axis!r}")
                axes = _axes(axis, len(ins[0].shape), self.in_names[0])
            if outs is None:
                shape = self.out_shapes(k, [None if bx is None else bx.shape for bx in ins], axes, keepdims)
                outs = tuple(a.empty(given[0], shape, k.outputs[i].type.decode(), dev) for i in range(k.output_count))
                bouts = [a.Borrowed(o, dl_stream) for o in outs]
                borrowed += bouts
            scalars = [self._scalar(k.scalars[i], v[nm]) for i, nm in enumerate(self.sc_names)]
            targs = n.TensorArgs()
            targs.inputs = (_ARG * max(len(ins), 1))(*[bx.tensor if bx else None for bx in ins])
            targs.input_count = len(ins)
            targs.outputs = (_ARG * max(len(bouts), 1))(*[bo.tensor for bo in bouts])
            targs.output_count = len(bouts)
            if scalars:
                targs.scalars = (ctypes.c_void_p * len(scalars))(*[ctypes.addressof(s) for s in scalars])
                targs.scalar_count = len(scalars)
            if axes is not None and (self.kind == 2 or v.get("axis") is not None):
                targs.axes = (ctypes.c_int64 * max(len(axes), 1))(*axes)
                targs.axis_count = len(axes)
            targs.keepdims, targs.stream = int(keepdims), stream or None
            ctx = c.context_for(v.get("ctx"), None if host else dev[1])
            handle = ctx.handle
            rep = c.report_buffer()
            status = n.tkh_tensor_call(handle, ctypes.pointer(k), ctypes.byref(targs), ctypes.byref(rep))
            if status != 0:
                raise n.error(status, rep.message.decode("utf-8", "replace") or None)
        finally:
            for bx in borrowed:
                bx.release()
        result = outs[0] if len(outs) == 1 else outs
        return (result, c.last_report()) if report else result

    def _scalar(self, operand, value):
        row = a.TYPES[operand.type.decode()]
        if row.family == 3:
            text = "true" if value is True else "false" if value is False else str(value)
        elif row.family == 2:
            text = repr(float(value))
        else:
            text = str(int(value)) if float(value).is_integer() else str(value)
        buf = (ctypes.c_char * row.size)()
        status = row.parse(text.encode(), ctypes.addressof(buf))
        if status:
            why = "is out of range for" if status == 2 else "is not a value of"
            raise n.ERRORS[1](f"{self.name}: scalar {operand.name.decode()} = {value!r} {why} {operand.type.decode()}")
        return buf


def functions(registry):
    """{op name: function} for every op of a tkh_registry."""
    by_op = {}
    r = registry.contents
    for i in range(r.count):
        by_op.setdefault(r.kernels[i].contents.op.decode(), []).append(r.kernels[i])
    out = {}
    for name, kernels in by_op.items():
        out[name] = _function(Op(name, kernels))
    return out


def _function(op):
    def fn(*args, **kwargs):
        return op(args, kwargs)
    fn.__name__ = fn.__qualname__ = op.name
    fn.__module__ = "tokitai_hip" if op.catalog == "core" else f"tokitai_hip.{op.catalog}"
    fn.__signature__, fn.__doc__, fn.op = op.signature, op.doc(), op
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
