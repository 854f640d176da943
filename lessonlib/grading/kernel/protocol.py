"""Plain-data messages between the judge and the student's kernel (JSON frames; never pickle).

A frame is a 4-byte big-endian length followed by that many bytes of UTF-8 JSON. Values are plain
JSON plus four tagged objects, so arrays travel exactly and nothing executable ever does:

=====================  ==========================================================================
tag                    meaning
=====================  ==========================================================================
``{"__nd__": ...}``    a numeric array: dtype (``"f8"``, ``"i8"`` or ``"b1"``), shape, base64 bytes
                       (and ``"readonly": true`` for an input the judge sent read-only)
``{"__tuple__": [..]}``  a tuple (a JSON list stays a list)
``{"__map__": [..]}``  a dict with string keys, as ``[key, value]`` pairs
``{"__model__": ..}``  a :class:`lessonlib.model.Model` (judge → kernel only), by its constructor data
=====================  ==========================================================================

``decode`` accepts only these shapes; anything else (object arrays, complex numbers, unknown tags,
deep nesting, huge arrays) is a :class:`ProtocolError`. A model is rebuilt only where the caller
passes the module that defines it (``decode(value, model=lessonlib.model)``: the kernel's client,
the checkers' own round trips); the judge decodes what the student's kernel returns without it, so
a model there is refused.

An input may be read-only: ``encode(args, readonly=True)`` (the judge's calls) marks each array the
judge holds read-only (``a.flags.writeable`` False), and ``decode(..., readonly=True)`` (the kernel's
client) hands the student's function a read-only array for it, so a function that writes into an array it was given fails at that line, in
the check of that function. What a student's function returns always arrives writeable.

This module imports nothing of ``lessonlib``: it ships to the graded
kernel as part of :mod:`lessonlib.grading.kernel`.

>>> import numpy as np
>>> x = (np.arange(6.0).reshape(2, 3), [1, 2.5], {"tau": np.array([20.0, 5.0])})
>>> y = decode(json_roundtrip(encode(x)))
>>> type(y).__name__, y[0].shape, y[1], y[2]["tau"].tolist()
('tuple', (2, 3), [1, 2.5], [20.0, 5.0])
"""
from __future__ import annotations

import base64
import json
import math
import numbers
import struct

import numpy as np

#: Largest frame either side accepts (bytes).
MAX_FRAME = 8 * 2**20
#: Largest array (elements) either side accepts.
MAX_ELEMENTS = 2**20
#: Deepest nesting of lists / tuples / maps.
MAX_DEPTH = 16
_DTYPES = {"f8": np.float64, "i8": np.int64, "b1": np.bool_}


class ProtocolError(ValueError):
    """A frame or value that is not plain data of the agreed shape."""


# --- framing ----------------------------------------------------------------------------------

def send(sock, message):
    """Send one JSON message as a length-prefixed frame."""
    data = json.dumps(message, separators=(",", ":")).encode()
    if len(data) > MAX_FRAME:
        raise ProtocolError(f"message too large: {len(data)} bytes > {MAX_FRAME}")
    sock.sendall(struct.pack(">I", len(data)) + data)


def _recv_exact(sock, n):
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(min(n - got, 1 << 16))
        if not chunk:
            raise ConnectionError("connection closed mid-frame")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def recv(sock):
    """Receive one frame and parse its JSON (a dict); oversized or malformed frames raise."""
    (n,) = struct.unpack(">I", _recv_exact(sock, 4))
    if n > MAX_FRAME:
        raise ProtocolError(f"frame too large: {n} bytes > {MAX_FRAME}")
    try:
        message = json.loads(_recv_exact(sock, n).decode())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolError(f"malformed frame: {exc}") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"expected a JSON object, got {type(message).__name__}")
    return message


def json_roundtrip(value):
    """``value`` through JSON text and back (what a frame does to it; for tests and doctests)."""
    return json.loads(json.dumps(value))


# --- values -----------------------------------------------------------------------------------

def _wire_dtype(code):
    """The little-endian dtype of an array on the wire."""
    return np.dtype(_DTYPES[code]).newbyteorder("<")


def _encode_array(a, readonly=False):
    a = np.asarray(a)
    readonly = readonly and not a.flags.writeable
    if np.iscomplexobj(a):
        raise ProtocolError("complex numbers are not supported (expected real numbers)")
    if a.dtype == np.bool_:
        code = "b1"
    elif np.issubdtype(a.dtype, np.integer):
        code = "i8"
    elif np.issubdtype(a.dtype, np.floating):
        code = "f8"
    else:
        try:
            a = np.asarray(a, dtype=float)
        except (TypeError, ValueError):
            raise ProtocolError(f"unsupported array dtype {a.dtype} (expected real numbers)") from None
        code = "f8"
    if a.size > MAX_ELEMENTS:
        raise ProtocolError(f"array too large: {a.size} elements > {MAX_ELEMENTS}")
    data = np.ascontiguousarray(a, dtype=_wire_dtype(code))
    spec = {"dtype": code, "shape": list(a.shape), "data": base64.b64encode(data.tobytes()).decode()}
    return {"__nd__": {**spec, "readonly": True} if readonly else spec}


def _encode_model(model):
    joints = [{"kind": j.kind, "axis": j.axis.tolist(), "point": j.point.tolist(), "name": j.name,
               "scale": j.scale} for j in model.joints]
    return {"__model__": {"parent": list(model.parent), "joints": joints, "T_tree": model.T_tree.tolist(),
                          "inertia": model.inertia.tolist(), "gravity": model.gravity.tolist(),
                          "name": model.name, "body_names": list(model.body_names)}}


def encode(value, _depth=0, *, readonly=False):
    """``value`` as JSON-able plain data (numbers, strings, lists, tuples, str-keyed dicts, arrays, Model).

    ``readonly``: mark the arrays that are read-only here to arrive read-only (the judge's inputs).
    """
    if _depth > MAX_DEPTH:
        raise ProtocolError(f"nesting deeper than {MAX_DEPTH}")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.ndarray):
        return _encode_array(value, readonly)
    if isinstance(value, np.generic):
        return encode(value.item(), _depth)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, numbers.Complex):
        raise ProtocolError("complex numbers are not supported (expected real numbers)")
    if isinstance(value, tuple):
        return {"__tuple__": [encode(v, _depth + 1, readonly=readonly) for v in value]}
    if isinstance(value, list):
        return [encode(v, _depth + 1, readonly=readonly) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise ProtocolError("dict keys must be strings")
        return {"__map__": [[k, encode(v, _depth + 1, readonly=readonly)] for k, v in value.items()]}
    if type(value).__name__ == "Model" and hasattr(value, "T_tree"):
        return _encode_model(value)
    try:                                                   # e.g. a sympy Float, a 0-d array-like
        return _encode_array(np.asarray(value, dtype=float))
    except (TypeError, ValueError):
        raise ProtocolError(f"unsupported type {type(value).__name__} (expected numbers or arrays)") from None


def _decode_array(spec, readonly=False):
    if not isinstance(spec, dict) or set(spec) - {"readonly"} != {"dtype", "shape", "data"} \
            or spec.get("readonly", True) is not True:
        raise ProtocolError("malformed array")
    code, shape, data = spec["dtype"], spec["shape"], spec["data"]
    if code not in _DTYPES or not isinstance(shape, list) or not isinstance(data, str):
        raise ProtocolError("malformed array")
    if len(shape) > 8 or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s <= MAX_ELEMENTS
                                 for s in shape):
        raise ProtocolError(f"bad array shape {shape!r}")
    count = math.prod(shape)
    if count > MAX_ELEMENTS:
        raise ProtocolError(f"array too large: {count} elements")
    dtype = _wire_dtype(code)
    try:
        raw = base64.b64decode(data, validate=True)
    except ValueError:
        raise ProtocolError("bad base64 array data") from None
    if len(raw) != count * dtype.itemsize:
        raise ProtocolError("array data does not match its shape")
    array = np.frombuffer(raw, dtype=dtype).astype(_DTYPES[code]).reshape(shape)
    array.flags.writeable = not (readonly and "readonly" in spec)
    return array


def _decode_model(spec, model):
    try:
        joints = [model.Joint(j["kind"], j["axis"], j["point"], name=j["name"], scale=j["scale"])
                  for j in spec["joints"]]
        return model.Model(spec["parent"], joints, spec["T_tree"], spec["inertia"], gravity=spec["gravity"],
                           name=spec["name"], body_names=spec["body_names"])
    except (KeyError, TypeError) as exc:
        raise ProtocolError(f"malformed model: {exc}") from None


def decode(value, *, model=None, readonly=False, _depth=0):
    """Inverse of :func:`encode`; rejects anything that is not plain data of the agreed shapes.

    ``model``: the module defining ``Model`` and ``Joint`` (:mod:`lessonlib.model`) to rebuild models
    with; None refuses a model. ``readonly``: honour the read-only marks (inputs from the judge); the
    judge decodes results without it, so a kernel that forges a mark on its result changes nothing.
    """
    if _depth > MAX_DEPTH:
        raise ProtocolError(f"nesting deeper than {MAX_DEPTH}")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [decode(v, model=model, readonly=readonly, _depth=_depth + 1) for v in value]
    if isinstance(value, dict) and len(value) == 1:
        (tag, body), = value.items()
        if tag == "__nd__":
            return _decode_array(body, readonly)
        if tag == "__tuple__" and isinstance(body, list):
            return tuple(decode(v, model=model, readonly=readonly, _depth=_depth + 1) for v in body)
        if tag == "__map__" and isinstance(body, list):
            out = {}
            for pair in body:
                if not (isinstance(pair, list) and len(pair) == 2 and isinstance(pair[0], str)):
                    raise ProtocolError("malformed map")
                out[pair[0]] = decode(pair[1], model=model, readonly=readonly, _depth=_depth + 1)
            return out
        if tag == "__model__" and model is not None and isinstance(body, dict):
            return _decode_model(body, model)
    raise ProtocolError(f"unsupported value {str(value)[:80]!r}")
