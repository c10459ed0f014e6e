"""PyTorch port of the MobileNetV2 backbone shipped with the npm package `nsfwjs`.

nsfwjs (v4.3.0) ships its default model ("mobilenet_v2", 224x224) as a TF.js
Keras *layers* model: model.json (topology + weightsManifest) plus .bin
shards, with every weight tensor uint8-quantized per tensor
(value = q * scale + min).  The topology is the stock Keras
`tf.keras.applications.MobileNetV2(alpha=1.0)` without its top, followed by a
small classifier head:

    ... Conv_1 (1x1, 1280) -> Conv_1_bn -> out_relu (ReLU6)
    -> AveragePooling2D(7x7, stride 7)  (== global average pool at 224x224)
    -> Flatten -> Dense(256, relu) -> Dropout -> Dense(128, relu) -> Dropout
    -> Dense(5, softmax)

Class order (nsfwjs/dist/cjs/nsfw_classes.js):
    0 Drawing, 1 Hentai, 2 Neutral, 3 Porn, 4 Sexy

PREPROCESSING (important; NOT the usual Keras MobileNetV2 [-1, 1] range):
nsfwjs `infer()` does `img.toFloat().div(255)` and, if the image is not
already 224x224, `tf.image.resizeBilinear(x, [224, 224], alignCorners=true)`.
So the network expects RGB in [0, 1] (x / 255), no mean/std, no [-1, 1]
shift.  `MobileNetV2Features` therefore takes float NCHW RGB in [0, 1].

Everything here is plain Conv2d / BatchNorm2d (eval) / ReLU6 (Clip) / Pad /
mean, so torch.onnx.export (opset 14) works.

Usage:
    model = build_mobilenet_features("/path/to/nsfwjs-extract/mobilenet_v2")
    feats = model(x)            # x: [N,3,224,224] in [0,1] -> [N,1280]
    head = build_nsfw_head(model_dir); probs = head(feats).softmax(-1)

Run `python3 mobilenet_tfjs.py MODEL_DIR [IMAGES...]` for the self-test.

Validation: on 6 inputs (5 real images + uniform noise) this port matched
the original model run by @tensorflow/tfjs 4.22.0 (CPU backend, same
pre-resized input) to 5e-6 max abs on the 1280-d features and 8e-7 on the
probabilities.  Observed behaviour of the original model: real photos ->
Neutral (~0.96-1.0); small emoji/icons composited on white are ALSO mostly
Neutral (only busy cartoon screenshots get some 'Drawing' mass), so
"emoji -> Drawing" is not a usable sanity check for this model.
"""
import json
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

NSFW_CLASSES = ["Drawing", "Hentai", "Neutral", "Porn", "Sexy"]
BN_EPS = 1e-3  # Keras BatchNormalization default; model.json confirms 0.001
INPUT_SIZE = 224

# Standard MobileNetV2 inverted-residual table (t = expansion, c = out
# channels, n = repeats, s = first stride), alpha = 1.0 (first conv 32,
# last conv 1280 in model.json).  Keras names the blocks expanded_conv
# (block 0, no expand layer), block_1 ... block_16.
_IR_TABLE = [
    (1, 16, 1, 1),
    (6, 24, 2, 2),
    (6, 32, 3, 2),
    (6, 64, 4, 2),
    (6, 96, 3, 1),
    (6, 160, 3, 2),
    (6, 320, 1, 1),
]


# --------------------------------------------------------------------------
# Weight loading
# --------------------------------------------------------------------------
def load_tfjs_weights(model_dir):
    """Read model.json + .bin shards; return {keras_weight_name: float32 array}.

    Handles per-tensor quantization (uint8/uint16: q*scale+min, float16) and
    plain float32/int32 tensors.  Shapes are the Keras (TF) layouts:
    Conv2D kernel [kh,kw,in,out], DepthwiseConv2D [kh,kw,C,1], Dense [in,out].
    """
    with open(os.path.join(model_dir, "model.json")) as f:
        mj = json.load(f)
    out = {}
    for group in mj["weightsManifest"]:
        buf = b"".join(open(os.path.join(model_dir, p), "rb").read() for p in group["paths"])
        off = 0
        for w in group["weights"]:
            n = int(np.prod(w["shape"])) if w["shape"] else 1
            q = w.get("quantization")
            if q:
                qdt = {"uint8": np.uint8, "uint16": np.uint16, "float16": np.float16}[q["dtype"]]
                raw = np.frombuffer(buf, qdt, n, off)
                off += raw.nbytes
                if q["dtype"] == "float16":
                    arr = raw.astype(np.float32)
                else:
                    # dequantize in float64 then cast, like tfjs (q*scale+min)
                    arr = (raw.astype(np.float64) * q["scale"] + q["min"]).astype(np.float32)
            else:
                dt = {"float32": np.float32, "int32": np.int32}[w["dtype"]]
                raw = np.frombuffer(buf, dt, n, off)
                off += raw.nbytes
                arr = raw.astype(np.float32)
            if w["name"] in out:
                raise ValueError("duplicate weight name %s" % w["name"])
            out[w["name"]] = arr.reshape(w["shape"])
        if off != len(buf):
            raise ValueError("weight group size mismatch: read %d of %d bytes" % (off, len(buf)))
    return out


def _model_layers(model_dir):
    with open(os.path.join(model_dir, "model.json")) as f:
        mj = json.load(f)
    return mj["modelTopology"]["model_config"]["config"]["layers"]


# --------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------
class ConvBNReLU6(nn.Sequential):
    """Conv (no bias) -> eval BN -> optional ReLU6, named like the Keras layers."""

    def __init__(self, cin, cout, k, stride=1, groups=1, relu=True, keras_pad_before=False):
        layers = []
        if keras_pad_before:
            # Keras `correct_pad` for even input sizes: pad (top 0, bottom 1,
            # left 0, right 1) then 'valid' conv.  Matches the ZeroPadding2D
            # layers in model.json ([[0,1],[0,1]]).
            layers.append(nn.ZeroPad2d((0, 1, 0, 1)))
            pad = 0
        else:
            pad = k // 2  # Keras 'same' with stride 1 (k odd) == symmetric k//2
        layers.append(nn.Conv2d(cin, cout, k, stride, pad, groups=groups, bias=False))
        layers.append(nn.BatchNorm2d(cout, eps=BN_EPS))
        if relu:
            layers.append(nn.ReLU6())
        super().__init__(*layers)

    @property
    def conv(self):
        return [m for m in self if isinstance(m, nn.Conv2d)][0]

    @property
    def bn(self):
        return [m for m in self if isinstance(m, nn.BatchNorm2d)][0]


class InvertedResidual(nn.Module):
    def __init__(self, keras_name, cin, cout, stride, expand):
        super().__init__()
        self.keras_name = keras_name  # 'expanded_conv' or 'block_i'
        hidden = cin * expand
        self.expand = ConvBNReLU6(cin, hidden, 1) if expand != 1 else None
        self.depthwise = ConvBNReLU6(hidden, hidden, 3, stride, groups=hidden,
                                     keras_pad_before=(stride == 2))
        self.project = ConvBNReLU6(hidden, cout, 1, relu=False)
        self.use_res = stride == 1 and cin == cout

    def forward(self, x):
        y = x if self.expand is None else self.expand(x)
        y = self.project(self.depthwise(y))
        return x + y if self.use_res else y


class MobileNetV2Features(nn.Module):
    """Keras MobileNetV2 (alpha=1.0) up to out_relu + global average pool.

    Input:  float [N,3,224,224], RGB, scaled to [0,1] (x/255, as nsfwjs does).
    Output: float [N,1280] pooled features (input of nsfwjs's Dense head).
    """

    feature_dim = 1280

    def __init__(self):
        super().__init__()
        self.stem = ConvBNReLU6(3, 32, 3, 2, keras_pad_before=True)  # Conv1_pad, Conv1, bn_Conv1
        blocks, cin, idx = [], 32, 0
        for t, c, n, s in _IR_TABLE:
            for i in range(n):
                name = "expanded_conv" if idx == 0 else "block_%d" % idx
                blocks.append(InvertedResidual(name, cin, c, s if i == 0 else 1, t))
                cin, idx = c, idx + 1
        self.blocks = nn.Sequential(*blocks)
        self.head_conv = ConvBNReLU6(cin, 1280, 1)  # Conv_1, Conv_1_bn, out_relu

    def forward(self, x):
        x = self.head_conv(self.blocks(self.stem(x)))
        # AveragePooling2D(7, stride 7) on the 7x7 map == global mean
        return x.mean(dim=(2, 3))

    # (torch module, keras conv name, keras bn name, is_depthwise)
    def _keras_map(self):
        yield self.stem, "Conv1", "bn_Conv1", False
        for b in self.blocks:
            p = b.keras_name
            if b.expand is not None:
                yield b.expand, p + "_expand", p + "_expand_BN", False
            yield b.depthwise, p + "_depthwise", p + "_depthwise_BN", True
            yield b.project, p + "_project", p + "_project_BN", False
        yield self.head_conv, "Conv_1", "Conv_1_bn", False


class NsfwHead(nn.Module):
    """nsfwjs classifier head: Dense(256,relu) -> Dense(128,relu) -> Dense(5).

    Returns logits (pre-softmax); apply .softmax(-1) for nsfwjs's probabilities.
    Dropout layers are identity at inference.
    """

    def __init__(self):
        super().__init__()
        self.dense_1 = nn.Linear(1280, 256)
        self.dense_2 = nn.Linear(256, 128)
        self.dense_3 = nn.Linear(128, 5)

    def forward(self, feats):
        return self.dense_3(F.relu(self.dense_2(F.relu(self.dense_1(feats)))))


# --------------------------------------------------------------------------
# Builders (strict: each Keras weight used exactly once, shapes must match)
# --------------------------------------------------------------------------
class _StrictWeights:
    def __init__(self, weights):
        self.w = weights
        self.used = set()

    def take(self, name, shape):
        if name not in self.w:
            raise KeyError("missing Keras weight %s" % name)
        if name in self.used:
            raise KeyError("Keras weight %s used twice" % name)
        a = self.w[name]
        if tuple(a.shape) != tuple(shape):
            raise ValueError("shape mismatch for %s: %s vs expected %s" % (name, a.shape, shape))
        self.used.add(name)
        return torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32))

    def check_all_used(self, allowed_unused_prefixes=()):
        unused = [k for k in self.w if k not in self.used
                  and not any(k.startswith(p) for p in allowed_unused_prefixes)]
        if unused:
            raise ValueError("unused Keras weights: %s" % unused)


def _check_topology(model, model_dir):
    """Cross-check our hard-coded architecture against model.json's layer configs."""
    cfg = {l["name"]: (l["class_name"], l["config"]) for l in _model_layers(model_dir)}
    for mod, conv_name, bn_name, dw in model._keras_map():
        cls, c = cfg[conv_name]
        conv = mod.conv
        assert cls == ("DepthwiseConv2D" if dw else "Conv2D"), conv_name
        assert tuple(c["strides"]) == conv.stride, conv_name
        assert tuple(c["kernel_size"]) == conv.kernel_size, conv_name
        assert not c["use_bias"] and c["activation"] == "linear", conv_name
        if not dw:
            assert c["filters"] == conv.out_channels, conv_name
        has_pad = isinstance(mod[0], nn.ZeroPad2d)
        assert has_pad == (c["padding"] == "valid" and conv.kernel_size != (1, 1)), conv_name
        bcls, bc = cfg[bn_name]
        assert bcls == "BatchNormalization" and abs(bc["epsilon"] - BN_EPS) < 1e-12, bn_name
    for name, (cls, c) in cfg.items():
        if cls == "ZeroPadding2D":
            assert c["padding"] == [[0, 1], [0, 1]], name
        if cls == "ReLU":
            assert c["max_value"] == 6, name
    assert cfg["average_pooling2d_1"][1]["pool_size"] == [7, 7]
    assert [cfg["dense_%d" % i][1]["units"] for i in (1, 2, 3)] == [256, 128, 5]
    assert cfg["input_1"][1]["batch_input_shape"] == [None, INPUT_SIZE, INPUT_SIZE, 3]


def _load_backbone(model, sw):
    for mod, conv_name, bn_name, dw in model._keras_map():
        conv, bn = mod.conv, mod.bn
        if dw:
            c = conv.out_channels
            k = sw.take(conv_name + "/depthwise_kernel", (3, 3, c, 1))  # [kh,kw,C,1]
            conv.weight.data.copy_(k.permute(2, 3, 0, 1))               # -> [C,1,kh,kw]
        else:
            kh, kw = conv.kernel_size
            k = sw.take(conv_name + "/kernel", (kh, kw, conv.in_channels, conv.out_channels))
            conv.weight.data.copy_(k.permute(3, 2, 0, 1))               # -> [out,in,kh,kw]
        n = bn.num_features
        bn.weight.data.copy_(sw.take(bn_name + "/gamma", (n,)))
        bn.bias.data.copy_(sw.take(bn_name + "/beta", (n,)))
        bn.running_mean.copy_(sw.take(bn_name + "/moving_mean", (n,)))
        bn.running_var.copy_(sw.take(bn_name + "/moving_variance", (n,)))


def build_mobilenet_features(model_dir):
    """Build the frozen (eval, requires_grad=False) backbone from an nsfwjs model dir.

    Strict: every backbone Keras weight must be consumed exactly once; the only
    weights allowed to remain are the head's dense_1/2/3 ones.
    """
    model = MobileNetV2Features()
    _check_topology(model, model_dir)
    sw = _StrictWeights(load_tfjs_weights(model_dir))
    _load_backbone(model, sw)
    sw.check_all_used(allowed_unused_prefixes=("dense_",))
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


def build_nsfw_head(model_dir, weights=None):
    """Build the 5-class head (logits) from the same model dir (strict on dense_*)."""
    w = weights if weights is not None else load_tfjs_weights(model_dir)
    sw = _StrictWeights({k: v for k, v in w.items() if k.startswith("dense_")})
    head = NsfwHead()
    for name, lin in (("dense_1", head.dense_1), ("dense_2", head.dense_2), ("dense_3", head.dense_3)):
        lin.weight.data.copy_(sw.take(name + "/kernel", (lin.in_features, lin.out_features)).t())
        lin.bias.data.copy_(sw.take(name + "/bias", (lin.out_features,)))
    sw.check_all_used()
    return head.eval()


def nsfw_logits(features, weights):
    """Functional head: features [N,1280] + Keras weight dict -> logits [N,5]."""
    t = lambda k: torch.from_numpy(np.asarray(weights[k], dtype=np.float32))
    h = F.relu(features @ t("dense_1/kernel") + t("dense_1/bias"))
    h = F.relu(h @ t("dense_2/kernel") + t("dense_2/bias"))
    return h @ t("dense_3/kernel") + t("dense_3/bias")


# --------------------------------------------------------------------------
# Self-test
# --------------------------------------------------------------------------
def load_image_01(path, size=INPUT_SIZE):
    """Load an image as float [3,size,size] in [0,1]; alpha composited on white.

    Resizing uses PIL bilinear, which is close to but not bit-identical with
    nsfwjs's tf.image.resizeBilinear(alignCorners=true).
    """
    from PIL import Image
    im = Image.open(path)
    if im.mode in ("RGBA", "LA", "P"):
        im = im.convert("RGBA")
        bg = Image.new("RGBA", im.size, (255, 255, 255, 255))
        im = Image.alpha_composite(bg, im)
    im = im.convert("RGB").resize((size, size), Image.BILINEAR)
    a = np.asarray(im, dtype=np.float32) / 255.0
    return torch.from_numpy(a).permute(2, 0, 1).contiguous()


def _self_test(model_dir, images):
    model = build_mobilenet_features(model_dir)
    head = build_nsfw_head(model_dir)
    weights = load_tfjs_weights(model_dir)
    names, xs = [], []
    for p in images:
        if os.path.exists(p):
            names.append(os.path.basename(p))
            xs.append(load_image_01(p))
        else:
            print("skip (missing):", p)
    x = torch.stack(xs)
    with torch.no_grad():
        feats = model(x)
        logits = head(feats)
        assert torch.allclose(logits, nsfw_logits(feats, weights), atol=1e-5)
        probs = logits.softmax(-1)
    print("features:", tuple(feats.shape))
    print("%-28s " % "image" + " ".join("%8s" % c for c in NSFW_CLASSES) + "   top")
    for n, p in zip(names, probs):
        print("%-28s " % n[:28] + " ".join("%8.4f" % v for v in p.tolist())
              + "   " + NSFW_CLASSES[int(p.argmax())])

    onnx_path = "/tmp/mobilenet_tfjs_features.onnx"
    torch.onnx.export(model, torch.zeros(1, 3, INPUT_SIZE, INPUT_SIZE), onnx_path,
                      opset_version=14, input_names=["pixels01"], output_names=["features"],
                      dynamic_axes={"pixels01": {0: "n"}, "features": {0: "n"}})
    print("ONNX export OK:", onnx_path, os.path.getsize(onnx_path), "bytes")
    return names, probs


if __name__ == "__main__":
    mdir = sys.argv[1] if len(sys.argv) > 1 else "/tmp/minclip-survey/nsfwjs-extract/mobilenet_v2"
    sk = "/tmp/minclip-survey/deb/python3-skimage/usr/lib/python3/dist-packages/skimage/data/"
    emo = "/tmp/minclip-survey/node_modules/emoji-datasource-google/img/google/64/"
    imgs = sys.argv[2:] or [
        sk + "chelsea.png", sk + "coffee.png", sk + "motorcycle_left.png", sk + "rocket.jpg",
        sk + "astronaut.png",
        emo + "1f600.png", emo + "1f431.png", emo + "1f680.png", emo + "1f34e.png", emo + "2764-fe0f.png",
    ]
    _self_test(mdir, imgs)
