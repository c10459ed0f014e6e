"""Writes nsfwjs's MobileNetV2 photo classifier (a Keras functional model in TF.js layers format) as ONNX.

Usage: /usr/bin/python3 models/scripts/photo_check/keras_to_onnx.py MODEL_JSON WEIGHTS_BIN OUT_ONNX

The graph is read from the Keras config layer by layer (only the layer types this model uses), so
nothing is retrained or approximated: every weight is the package's own uint8 code, kept as uint8 in
the ONNX file (2.6 MB) and dequantized in the graph as TF.js does (code * scale + min, in float32).
The input is NCHW float32 in [0, 1], 224 x 224, as nsfwjs feeds it after dividing by 255 and
resizing (photoCheck.ts does both); the output is the five softmax probabilities in nsfwjs's class
order: Drawing, Hentai, Neutral, Porn, Sexy.
"""
import json
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def read_weights(manifest, blob):
    """Each weight as (uint8 codes, scale, min) or float32 values, by name, in the manifest's order."""
    out, offset = {}, 0
    for group in manifest:
        for w in group["weights"]:
            shape = w["shape"]
            count = int(np.prod(shape)) if shape else 1
            q = w.get("quantization")
            if q:
                if q["dtype"] != "uint8":
                    raise SystemExit(f"{w['name']}: quantization {q['dtype']} is not read here")
                codes = np.frombuffer(blob, dtype=np.uint8, count=count, offset=offset).reshape(shape)
                offset += count
                out[w["name"]] = ("uint8", codes, np.float32(q["scale"]), np.float32(q["min"]))
            else:
                values = np.frombuffer(blob, dtype=np.float32, count=count, offset=offset).reshape(shape)
                offset += count * 4
                out[w["name"]] = ("float32", values)
    if offset != len(blob):
        raise SystemExit(f"the weights file has {len(blob)} bytes, the manifest {offset}")
    return out


class Graph:
    def __init__(self, weights):
        self.weights = weights
        self.nodes, self.inits = [], []

    def weight(self, name, layout=None):
        """A weight as a float32 tensor in the graph: its uint8 codes dequantized in the graph, then transposed to `layout`."""
        entry = self.weights[name]
        base = name.replace("/", "_").replace(":", "_")
        if entry[0] == "float32":
            values = entry[1] if layout is None else np.transpose(entry[1], layout)
            self.inits.append(numpy_helper.from_array(np.ascontiguousarray(values), base))
            return base
        _, codes, scale, minimum = entry
        codes = codes if layout is None else np.ascontiguousarray(np.transpose(codes, layout))
        self.inits += [
            numpy_helper.from_array(codes, f"{base}_codes"),
            numpy_helper.from_array(np.array(scale, dtype=np.float32), f"{base}_scale"),
            numpy_helper.from_array(np.array(minimum, dtype=np.float32), f"{base}_min"),
        ]
        self.nodes += [
            helper.make_node("Cast", [f"{base}_codes"], [f"{base}_float"], to=TensorProto.FLOAT),
            helper.make_node("Mul", [f"{base}_float", f"{base}_scale"], [f"{base}_scaled"]),
            helper.make_node("Add", [f"{base}_scaled", f"{base}_min"], [base]),
        ]
        return base

    def node(self, op, inputs, output, **attrs):
        self.nodes.append(helper.make_node(op, inputs, [output], **attrs))
        return output


def same_pads(kernel, stride):
    """Keras 'same' padding for one axis with stride 1 (the only 'same' convolutions here)."""
    if stride != 1:
        raise SystemExit("'same' padding with a stride other than 1 is not read here")
    total = kernel - 1
    return total // 2, total - total // 2


def convert(model_json, weights_bin, out_path):
    model = json.load(open(model_json))
    weights = read_weights(model["weightsManifest"], open(weights_bin, "rb").read())
    config = model["modelTopology"]["model_config"]["config"]
    g = Graph(weights)
    tensor = {}
    (input_name, _, _), = config["input_layers"]
    for layer in config["layers"]:
        kind, c, name = layer["class_name"], layer["config"], layer["name"]
        inputs = [tensor[node[0]] for node in layer["inbound_nodes"][0]] if layer["inbound_nodes"] else []
        if kind == "InputLayer":
            tensor[name] = "pixels"
        elif kind == "ZeroPadding2D":
            (top, bottom), (left, right) = c["padding"]
            pads = numpy_helper.from_array(np.array([0, 0, top, left, 0, 0, bottom, right], dtype=np.int64), f"{name}_pads")
            g.inits.append(pads)
            tensor[name] = g.node("Pad", [inputs[0], pads.name], name, mode="constant")
        elif kind in ("Conv2D", "DepthwiseConv2D"):
            kh, kw = c["kernel_size"]
            sh, sw = c["strides"]
            if kind == "Conv2D":
                kernel = g.weight(f"{name}/kernel", (3, 2, 0, 1))  # HWIO -> OIHW
                group = 1
            else:
                if c["depth_multiplier"] != 1:
                    raise SystemExit("depth_multiplier other than 1 is not read here")
                kernel = g.weight(f"{name}/depthwise_kernel", (2, 3, 0, 1))  # H W C 1 -> C 1 H W
                group = weights[f"{name}/depthwise_kernel"][1].shape[2]
            if c["padding"] == "same":
                (pt, pb), (pl, pr) = same_pads(kh, sh), same_pads(kw, sw)
            else:
                pt = pb = pl = pr = 0
            ins = [inputs[0], kernel] + ([g.weight(f"{name}/bias")] if c["use_bias"] else [])
            out = g.node("Conv", ins, name, kernel_shape=[kh, kw], strides=[sh, sw], pads=[pt, pl, pb, pr], group=group)
            if c["activation"] != "linear":
                raise SystemExit(f"{name}: activation {c['activation']} is not read here")
            tensor[name] = out
        elif kind == "BatchNormalization":
            ins = [inputs[0]] + [g.weight(f"{name}/{p}") for p in ("gamma", "beta", "moving_mean", "moving_variance")]
            tensor[name] = g.node("BatchNormalization", ins, name, epsilon=float(c["epsilon"]))
        elif kind == "ReLU":
            if c.get("max_value") is None:
                tensor[name] = g.node("Relu", inputs, name)
            else:
                lo = numpy_helper.from_array(np.array(0, dtype=np.float32), f"{name}_lo")
                hi = numpy_helper.from_array(np.array(c["max_value"], dtype=np.float32), f"{name}_hi")
                g.inits += [lo, hi]
                tensor[name] = g.node("Clip", [inputs[0], lo.name, hi.name], name)
        elif kind == "Add":
            tensor[name] = g.node("Add", inputs, name)
        elif kind == "AveragePooling2D":
            if c["padding"] != "valid":
                raise SystemExit("AveragePooling2D with padding other than valid is not read here")
            tensor[name] = g.node("AveragePool", inputs, name, kernel_shape=c["pool_size"], strides=c["strides"])
        elif kind == "Flatten":
            # NHWC order, as Keras flattens; the pool leaves 1 x 1 here, so the order is the channels'.
            perm = g.node("Transpose", inputs, f"{name}_nhwc", perm=[0, 2, 3, 1])
            tensor[name] = g.node("Flatten", [perm], name, axis=1)
        elif kind == "Dense":
            gemm = g.node("Gemm", [inputs[0], g.weight(f"{name}/kernel"), g.weight(f"{name}/bias")], f"{name}_linear")
            activation = c["activation"]
            if activation == "relu":
                tensor[name] = g.node("Relu", [gemm], name)
            elif activation == "softmax":
                tensor[name] = g.node("Softmax", [gemm], name, axis=-1)
            elif activation == "linear":
                tensor[name] = gemm
            else:
                raise SystemExit(f"{name}: activation {activation} is not read here")
        elif kind == "Dropout":
            tensor[name] = inputs[0]  # inference: the identity
        else:
            raise SystemExit(f"layer {name}: {kind} is not read here")
    (output_name, _, _), = config["output_layers"]
    g.nodes.append(helper.make_node("Identity", [tensor[output_name]], ["probabilities"]))
    graph = helper.make_graph(
        g.nodes,
        "nsfwjs_mobilenet_v2",
        [helper.make_tensor_value_info("pixels", TensorProto.FLOAT, [1, 3, 224, 224])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [1, 5])],
        g.inits,
    )
    onnx_model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="mmdialog-web photo-check:port")
    onnx_model.ir_version = 8
    onnx.checker.check_model(onnx_model)
    onnx.save(onnx_model, out_path)
    print(f"wrote {out_path}: {len(g.nodes)} nodes, {sum(int(np.prod(i.dims)) for i in g.inits):,} weight values")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    convert(*sys.argv[1:])
