"""Keep a weight-quantized model's embedding table in int8: gather the rows first, then dequantize.

The default model stores its weights as int8 with a float scale per row, dequantized in the graph:
`Gather(Mul(Cast(table_int8), scale), ids)`. onnxruntime folds `Mul(Cast(...))` of constants into
one float32 constant when it loads the model, so the 30,522 x 384 word-embedding table takes
47 MB instead of its 11.7 MB on file, for the life of every process that embeds. Gathering first,
`Mul(Cast(Gather(table_int8, ids)), Gather(scale, ids))`, computes the same values element by
element (the vectors are bit-identical, `tests/embed/test_onnx_gather.py`) on the few rows a batch
uses, and nothing is left for the loader to fold: ~34 MB less resident, at the same speed
(benchmarks/RESULTS.md, seventeenth session).

`onnx` is not a dependency, so the rewrite works on the protobuf wire format directly: it reads
the graph's nodes and the initializers' names, types and shapes, drops the three nodes of each
matched pattern, writes four new nodes where the `Gather` was (the order stays topological), and
copies every other byte, the weights included, as it was. A model without the pattern comes back
unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_VARINT, _I64, _LEN, _I32 = 0, 1, 2, 5
_MODEL_GRAPH, _GRAPH_NODE, _GRAPH_INITIALIZER = 7, 1, 5
_NODE_INPUT, _NODE_OUTPUT, _NODE_NAME, _NODE_OP, _NODE_ATTRIBUTE, _NODE_DOMAIN = 1, 2, 3, 4, 5, 7
_ATTR_NAME, _ATTR_I, _ATTR_TYPE, _ATTR_INT = 1, 3, 20, 2
_TENSOR_DIMS, _TENSOR_TYPE, _TENSOR_NAME = 1, 2, 8
_INT8, _FLOAT = 3, 1


def _varint(buf: memoryview, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def _fields(buf: memoryview):
    """(number, wire type, value, start, end) of each field; a LEN value is a memoryview."""
    pos, end = 0, len(buf)
    while pos < end:
        start = pos
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == _VARINT:
            value, pos = _varint(buf, pos)
        elif wire == _LEN:
            size, pos = _varint(buf, pos)
            value, pos = buf[pos:pos + size], pos + size
        elif wire == _I64:
            value, pos = bytes(buf[pos:pos + 8]), pos + 8
        elif wire == _I32:
            value, pos = bytes(buf[pos:pos + 4]), pos + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield number, wire, value, start, pos


def _encode_varint(value: int) -> bytes:
    out = bytearray()
    value &= (1 << 64) - 1  # negative int64s are ten bytes, as protobuf writes them
    while True:
        low = value & 0x7F
        value >>= 7
        if value:
            out.append(low | 0x80)
        else:
            out.append(low)
            return bytes(out)


def _len_field(number: int, payload: bytes) -> bytes:
    return _encode_varint(number << 3 | _LEN) + _encode_varint(len(payload)) + payload


def _int_field(number: int, value: int) -> bytes:
    return _encode_varint(number << 3 | _VARINT) + _encode_varint(value)


@dataclass
class _Node:
    start: int
    end: int
    op: str = ""
    domain: str = ""
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    ints: dict[str, int] = field(default_factory=dict)  # integer attributes
    other_attributes: bool = False


def _node(raw: memoryview, start: int, end: int) -> _Node:
    node = _Node(start, end)
    for number, _, value, _, _ in _fields(raw):
        if number == _NODE_INPUT:
            node.inputs.append(bytes(value).decode())
        elif number == _NODE_OUTPUT:
            node.outputs.append(bytes(value).decode())
        elif number == _NODE_OP:
            node.op = bytes(value).decode()
        elif number == _NODE_DOMAIN:
            node.domain = bytes(value).decode()
        elif number == _NODE_ATTRIBUTE:
            attr = {n: v for n, _, v, _, _ in _fields(value)}
            if attr.get(_ATTR_TYPE) == _ATTR_INT and _ATTR_NAME in attr:
                node.ints[bytes(attr[_ATTR_NAME]).decode()] = attr.get(_ATTR_I, 0)
            else:
                node.other_attributes = True
    return node


def _tensor(raw: memoryview) -> tuple[str, int, tuple[int, ...]]:
    name, dtype, dims = "", 0, []
    for number, wire, value, _, _ in _fields(raw):
        if number == _TENSOR_NAME:
            name = bytes(value).decode()
        elif number == _TENSOR_TYPE:
            dtype = value
        elif number == _TENSOR_DIMS and wire == _VARINT:
            dims.append(value)
        elif number == _TENSOR_DIMS:  # packed
            pos = 0
            while pos < len(value):
                dim, pos = _varint(value, pos)
                dims.append(dim)
    return name, dtype, tuple(dims)


def _encode_node(op: str, inputs: list[str], outputs: list[str], name: str, ints: dict[str, int]) -> bytes:
    body = b"".join(_len_field(_NODE_INPUT, i.encode()) for i in inputs)
    body += b"".join(_len_field(_NODE_OUTPUT, o.encode()) for o in outputs)
    body += _len_field(_NODE_NAME, name.encode()) + _len_field(_NODE_OP, op.encode())
    for key, value in ints.items():
        body += _len_field(_NODE_ATTRIBUTE, _len_field(_ATTR_NAME, key.encode()) + _int_field(_ATTR_I, value)
                           + _int_field(_ATTR_TYPE, _ATTR_INT))
    return _len_field(_GRAPH_NODE, body)


def _replacement(gather: _Node, table: str, scale: str, per_row: bool) -> bytes:
    ids, out, stem = gather.inputs[1], gather.outputs[0], gather.outputs[0] + "/int8_rows"
    scale_rows = scale
    nodes = [_encode_node("Gather", [table, ids], [stem + "/q"], stem + "/gather", {"axis": 0}),
             _encode_node("Cast", [stem + "/q"], [stem + "/f"], stem + "/cast", {"to": _FLOAT})]
    if per_row:
        scale_rows = stem + "/scale"
        nodes.append(_encode_node("Gather", [scale, ids], [scale_rows], stem + "/gather_scale", {"axis": 0}))
    nodes.append(_encode_node("Mul", [stem + "/f", scale_rows], [out], stem + "/mul", {}))
    return b"".join(nodes)


def _rewrite_graph(graph: memoryview) -> list[bytes | memoryview] | None:
    nodes: list[_Node] = []
    tensors: dict[str, tuple[int, tuple[int, ...]]] = {}
    for number, _, value, start, end in _fields(graph):
        if number == _GRAPH_NODE:
            nodes.append(_node(value, start, end))
        elif number == _GRAPH_INITIALIZER:
            name, dtype, dims = _tensor(value)
            tensors[name] = (dtype, dims)
    users: dict[str, list[_Node]] = {}
    for node in nodes:
        for name in node.inputs:
            users.setdefault(name, []).append(node)

    def only_user(name: str, op: str) -> _Node | None:
        found = users.get(name, [])
        ok = len(found) == 1 and found[0].op == op and not found[0].domain and not found[0].other_attributes
        return found[0] if ok else None

    dropped: set[int] = set()
    replaced: dict[int, bytes] = {}
    for table, (dtype, dims) in tensors.items():
        if dtype != _INT8 or len(dims) != 2:
            continue
        cast = only_user(table, "Cast")
        if cast is None or cast.ints.get("to") != _FLOAT or len(cast.inputs) != 1:
            continue
        mul = only_user(cast.outputs[0], "Mul")
        if mul is None or len(mul.inputs) != 2:
            continue
        scale = mul.inputs[1] if mul.inputs[0] == cast.outputs[0] else mul.inputs[0]
        scale_dims = tensors.get(scale, (0, None))[1]
        gather = only_user(mul.outputs[0], "Gather")
        if scale_dims is None or tensors[scale][0] != _FLOAT or gather is None or gather.inputs[0] != mul.outputs[0]:
            continue
        per_row = scale_dims == (dims[0], 1)
        if gather.ints.get("axis", 0) != 0 or not (per_row or all(d == 1 for d in scale_dims)):
            continue
        dropped |= {cast.start, mul.start}
        replaced[gather.start] = _replacement(gather, table, scale, per_row)
    if not replaced:
        return None
    parts: list[bytes | memoryview] = []
    for _, _, _, start, end in _fields(graph):
        if start in replaced:
            parts.append(replaced[start])
        elif start not in dropped:
            parts.append(graph[start:end])
    return parts


def gather_before_dequantize(model: bytes) -> bytes | None:
    """The model with each int8 embedding table gathered before it is dequantized, or None when
    it has no such table (the model is then used as it is)."""
    buf = memoryview(model)
    parts: list[bytes | memoryview] = []
    changed = False
    for number, wire, value, start, end in _fields(buf):
        if number == _MODEL_GRAPH and wire == _LEN:
            graph = _rewrite_graph(value)
            if graph is not None:  # the graph's parts are copied once, by the final join
                parts.append(_encode_varint(_MODEL_GRAPH << 3 | _LEN) + _encode_varint(sum(map(len, graph))))
                parts += graph
                changed = True
                continue
        parts.append(buf[start:end])
    return b"".join(parts) if changed else None
