#!/usr/bin/python3
"""
int8 variant of an ONNX model by a graph rewrite with the onnx helper API alone (Debian's
python3-onnx; there is no onnxruntime for Python here), in the integer ops onnxruntime-web's WASM
build runs:

  MatMul / Gemm with a constant weight  ->  DynamicQuantizeLinear(x) -> MatMulInteger(xq, Wq)
                                            -> Cast -> Mul(x_scale * w_scale[col]) [-> Add bias]
  Conv with a constant weight           ->  DynamicQuantizeLinear(x) -> ConvInteger(xq, Wq)
                                            -> Cast -> Mul(x_scale * w_scale[channel]) [-> Add bias]

Weights are symmetric int8 per output column / channel (zero point 0, scale max|w| / 127), stored
as uint8 with zero point 128 where onnxruntime's kernel takes only uint8 weights (ConvInteger).
Activations are quantized per tensor at run time (DynamicQuantizeLinear), so no calibration set is
needed and nothing is chosen on evaluation photos. One DynamicQuantizeLinear is shared by every
quantized node that reads the same tensor.

The first and last quantizable layers (in graph order) can stay float (--keep-first, --keep-last),
and depthwise / grouped convolutions stay float unless --grouped is given (they hold few weights;
--grouped was not measured).

Usage (deterministic: same input, same bytes; about a second on two cores). The two recipes
measured on our own 117 held-out photos (docs/models.md, "int8 variants"); neither file is shipped:
  /usr/bin/python3 models/scripts/quantize_int8.py models/detector/onnx/model.onnx models/detector/onnx/model_quantized.onnx
  /usr/bin/python3 models/scripts/quantize_int8.py models/mini-clip/onnx/vision_model.onnx models/mini-clip/onnx/vision_model_quantized.onnx --ops Conv --keep-first 6
The `_quantized` name is the one the loader (src/engine/onnx/executionPlan.ts) takes on WASM; compare
it with float through the page's loader: npm run bench -- retrieval|caption|perf ... --dtype q8 / --detector-dtype q8.
"""
import argparse
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def constant_arrays(graph):
    """Initializers and Constant nodes' tensors by output name."""
    arrays = {init.name: numpy_helper.to_array(init) for init in graph.initializer}
    for node in graph.node:
        if node.op_type == 'Constant':
            for attr in node.attribute:
                if attr.name == 'value':
                    arrays[node.output[0]] = numpy_helper.to_array(attr.t)
    return arrays


def attr(node, name, default):
    for a in node.attribute:
        if a.name == name:
            return helper.get_attribute_value(a)
    return default


def symmetric_int8(weight, axis):
    """Per-slice (along `axis`) symmetric int8 weights and their float scales."""
    moved = np.moveaxis(weight.astype(np.float64), axis, 0)
    peak = np.abs(moved.reshape(moved.shape[0], -1)).max(axis=1)
    scale = np.where(peak > 0, peak / 127.0, 1.0)
    shape = [-1] + [1] * (moved.ndim - 1)
    q = np.clip(np.rint(moved / scale.reshape(shape)), -127, 127).astype(np.int8)
    return np.moveaxis(q, 0, axis), scale.astype(np.float32)


def quantizable(node, arrays):
    """What a node becomes: ('matmul', W[K,N], bias) / ('conv', W, bias), or None to keep it float."""
    if node.op_type == 'MatMul' and node.input[1] in arrays and arrays[node.input[1]].ndim == 2:
        return 'matmul', arrays[node.input[1]], None
    if node.op_type == 'Gemm' and node.input[1] in arrays:
        if attr(node, 'transA', 0) or attr(node, 'alpha', 1.0) != 1.0 or attr(node, 'beta', 1.0) != 1.0:
            return None
        w = arrays[node.input[1]]
        w = w.T if attr(node, 'transB', 0) else w
        bias = arrays.get(node.input[2]) if len(node.input) > 2 and node.input[2] else None
        if len(node.input) > 2 and node.input[2] and bias is None:
            return None
        return 'matmul', w, bias
    if node.op_type == 'Conv' and node.input[1] in arrays:
        bias = arrays.get(node.input[2]) if len(node.input) > 2 and node.input[2] else None
        if len(node.input) > 2 and node.input[2] and bias is None:
            return None
        return 'conv', arrays[node.input[1]], bias
    return None


def quantize(model, keep_first, keep_last, grouped, keep_names, ops=('Conv', 'MatMul', 'Gemm')):
    graph = model.graph
    arrays = constant_arrays(graph)
    candidates, grouped_kept = [], []
    for node in graph.node:
        plan = quantizable(node, arrays)
        if plan is None or node.name in keep_names or node.op_type not in ops:
            continue
        if plan[0] == 'conv' and attr(node, 'group', 1) != 1 and not grouped:
            grouped_kept.append(node.name or node.output[0])
            continue
        candidates.append((node, plan))
    chosen = candidates[keep_first:len(candidates) - keep_last if keep_last else None]
    chosen_ids = {id(node): plan for node, plan in chosen}

    new_nodes, new_inits = [], []
    dynamic = {}  # activation name -> (xq, x_scale, x_zero_point)

    def activation(name):
        if name not in dynamic:
            base = f'{name}_dq'
            outs = [f'{base}_q', f'{base}_scale', f'{base}_zero_point']
            new_nodes.append(helper.make_node('DynamicQuantizeLinear', [name], outs, name=f'{base}_DynamicQuantizeLinear'))
            dynamic[name] = outs
        return dynamic[name]

    for node in graph.node:
        plan = chosen_ids.get(id(node))
        if plan is None:
            new_nodes.append(node)
            continue
        kind, weight, bias = plan
        xq, x_scale, x_zero = activation(node.input[0])
        stem = node.name or node.output[0]
        if kind == 'matmul':
            wq, w_scale = symmetric_int8(weight, axis=1)  # one scale per output column
            new_inits += [numpy_helper.from_array(wq, f'{stem}_Wq'), numpy_helper.from_array(np.zeros(wq.shape[1], np.int8), f'{stem}_Wzp')]
            op = helper.make_node('MatMulInteger', [xq, f'{stem}_Wq', x_zero, f'{stem}_Wzp'], [f'{stem}_int32'], name=f'{stem}_MatMulInteger')
            scale_shape = [wq.shape[1]]
        else:
            wq, w_scale = symmetric_int8(weight, axis=0)  # one scale per output channel
            # onnxruntime's ConvInteger takes uint8 weights with one zero point: int8 + 128.
            wu = (wq.astype(np.int16) + 128).astype(np.uint8)
            new_inits += [numpy_helper.from_array(wu, f'{stem}_Wq'), numpy_helper.from_array(np.array(128, np.uint8), f'{stem}_Wzp')]
            op = helper.make_node('ConvInteger', [xq, f'{stem}_Wq', x_zero, f'{stem}_Wzp'], [f'{stem}_int32'], name=f'{stem}_ConvInteger')
            for a in node.attribute:
                if a.name in ('auto_pad', 'dilations', 'group', 'kernel_shape', 'pads', 'strides'):
                    op.attribute.append(a)
            scale_shape = [wq.shape[0]] + [1] * (weight.ndim - 2)
        new_inits.append(numpy_helper.from_array(w_scale.reshape(scale_shape), f'{stem}_Wscale'))
        out = node.output[0]
        scaled = f'{stem}_scaled' if bias is not None else out
        new_nodes += [
            op,
            helper.make_node('Cast', [f'{stem}_int32'], [f'{stem}_float'], to=TensorProto.FLOAT, name=f'{stem}_Cast'),
            helper.make_node('Mul', [x_scale, f'{stem}_Wscale'], [f'{stem}_scale'], name=f'{stem}_ScaleMul'),
            helper.make_node('Mul', [f'{stem}_float', f'{stem}_scale'], [scaled], name=f'{stem}_Dequantize'),
        ]
        if bias is not None:
            new_inits.append(numpy_helper.from_array(bias.astype(np.float32).reshape(scale_shape), f'{stem}_bias'))
            new_nodes.append(helper.make_node('Add', [scaled, f'{stem}_bias'], [out], name=f'{stem}_BiasAdd'))

    # The DynamicQuantizeLinear of an activation must follow the node that makes it: re-sort.
    del graph.node[:]
    graph.node.extend(topological(new_nodes, graph))
    graph.initializer.extend(new_inits)
    drop_unused(graph)
    kept = [node.name or node.output[0] for node, _ in candidates if id(node) not in chosen_ids]
    return [node.name or node.output[0] for node, _ in chosen], kept, grouped_kept


def topological(nodes, graph):
    ready = {i.name for i in graph.input} | {i.name for i in graph.initializer} | {''}
    producers = {}
    for n in nodes:
        for o in n.output:
            producers[o] = n
    ordered, done = [], set()

    def visit(n):
        if id(n) in done:
            return
        for i in n.input:
            if i not in ready and i in producers and id(producers[i]) not in done:
                visit(producers[i])
        done.add(id(n))
        ordered.append(n)

    sys.setrecursionlimit(100000)
    for n in nodes:
        visit(n)
    return ordered


def drop_unused(graph):
    used = {i for n in graph.node for i in n.input} | {o.name for o in graph.output}
    keep = [i for i in graph.initializer if i.name in used]
    del graph.initializer[:]
    graph.initializer.extend(keep)
    nodes = [n for n in graph.node if n.op_type != 'Constant' or n.output[0] in used]
    del graph.node[:]
    graph.node.extend(nodes)


def main():
    parser = argparse.ArgumentParser(description='int8 (per-channel weights, dynamic activations) variant of an ONNX model for onnxruntime-web WASM.')
    parser.add_argument('input', help='float ONNX model')
    parser.add_argument('output', help='where the int8 model goes (e.g. onnx/<model>_quantized.onnx, the name the loader picks on WASM)')
    parser.add_argument('--keep-first', type=int, default=0, help='quantizable layers kept float at the start, in graph order (default 0)')
    parser.add_argument('--keep-last', type=int, default=0, help='quantizable layers kept float at the end (default 0)')
    parser.add_argument('--grouped', action='store_true', help='quantize depthwise / grouped convolutions too')
    parser.add_argument('--keep', action='append', default=[], help='a node name to keep float (repeatable)')
    parser.add_argument('--ops', default='Conv,MatMul,Gemm', help='op types to quantize, comma-separated (default Conv,MatMul,Gemm)')
    args = parser.parse_args()
    if args.input == args.output:
        parser.error('the output must not overwrite the float model')
    ops = tuple(args.ops.split(','))
    if not ops or any(op not in ('Conv', 'MatMul', 'Gemm') for op in ops):
        parser.error(f'--ops takes Conv, MatMul and Gemm, comma-separated, not "{args.ops}"')
    model = onnx.load(args.input)
    quantized, kept, grouped_kept = quantize(model, args.keep_first, args.keep_last, args.grouped, set(args.keep), ops)
    model.producer_name = 'mmdialog-web models/scripts/quantize_int8.py'
    onnx.checker.check_model(model)
    onnx.save(model, args.output)
    print(f'{args.output}: {len(quantized)} layers int8; kept float: {len(kept)} by --keep-first/--keep-last/--keep ({", ".join(kept) or "none"}), {len(grouped_kept)} depthwise/grouped convolutions')


if __name__ == '__main__':
    main()
