"""A CLIP in plain PyTorch with the module layout, pooling and ONNX interface of Hugging Face's
CLIPTextModelWithProjection / CLIPVisionModelWithProjection (as exported for Transformers.js),
so a pack made here is indistinguishable to the engine from the real clip-vit-base-patch32."""
import math

import torch
from torch import nn


class QuickGELU(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(1.702 * x)


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.q_proj, self.k_proj, self.v_proj, self.out_proj = (nn.Linear(dim, dim) for _ in range(4))

    def forward(self, x, bias=None):
        b, n, d = x.shape
        split = lambda t: t.view(b, n, self.heads, self.head_dim).transpose(1, 2)
        q, k, v = split(self.q_proj(x)) * self.head_dim**-0.5, split(self.k_proj(x)), split(self.v_proj(x))
        scores = q @ k.transpose(-1, -2)
        if bias is not None:
            scores = scores + bias
        out = scores.softmax(-1) @ v
        return self.out_proj(out.transpose(1, 2).reshape(b, n, d))


class EncoderLayer(nn.Module):
    def __init__(self, dim, heads, mlp_dim, eps):
        super().__init__()
        self.self_attn = Attention(dim, heads)
        self.layer_norm1 = nn.LayerNorm(dim, eps=eps)
        self.mlp = nn.Sequential()
        self.mlp.fc1, self.mlp.act, self.mlp.fc2 = nn.Linear(dim, mlp_dim), QuickGELU(), nn.Linear(mlp_dim, dim)
        self.layer_norm2 = nn.LayerNorm(dim, eps=eps)

    def forward(self, x, bias=None):
        x = x + self.self_attn(self.layer_norm1(x), bias)
        return x + self.mlp(self.layer_norm2(x))


class Encoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.ModuleList(
            EncoderLayer(cfg["hidden_size"], cfg["num_attention_heads"], cfg["intermediate_size"], cfg["layer_norm_eps"])
            for _ in range(cfg["num_hidden_layers"])
        )

    def forward(self, x, bias=None):
        for layer in self.layers:
            x = layer(x, bias)
        return x


class TextTransformer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d = cfg["hidden_size"]
        self.embeddings = nn.Module()
        self.embeddings.token_embedding = nn.Embedding(cfg["vocab_size"], d)
        self.embeddings.position_embedding = nn.Embedding(cfg["max_position_embeddings"], d)
        self.encoder = Encoder(cfg)
        self.final_layer_norm = nn.LayerNorm(d, eps=cfg["layer_norm_eps"])

    def forward(self, input_ids, attention_mask):
        n = input_ids.shape[1]
        pos = torch.arange(n, device=input_ids.device).unsqueeze(0)
        x = self.embeddings.token_embedding(input_ids) + self.embeddings.position_embedding(pos)
        # Causal mask plus padding mask, as HF CLIP's text encoder.
        neg = torch.finfo(x.dtype).min
        causal = torch.triu(torch.full((n, n), neg), diagonal=1)
        padding = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * neg
        x = self.encoder(x, causal[None, None] + padding)
        x = self.final_layer_norm(x)
        # Pool at the end-of-text token: the highest id in the sequence (HF, eos_token_id == 2 configs).
        eot = input_ids.to(torch.int64).argmax(dim=-1)
        return x[torch.arange(x.shape[0]), eot]


class VisionTransformer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d, p, s = cfg["hidden_size"], cfg["patch_size"], cfg["image_size"]
        self.embeddings = nn.Module()
        self.embeddings.class_embedding = nn.Parameter(torch.randn(d))
        self.embeddings.patch_embedding = nn.Conv2d(cfg["num_channels"], d, kernel_size=p, stride=p, bias=False)
        self.embeddings.position_embedding = nn.Embedding((s // p) ** 2 + 1, d)
        self.pre_layrnorm = nn.LayerNorm(d, eps=cfg["layer_norm_eps"])  # sic: HF's name
        self.encoder = Encoder(cfg)
        self.post_layernorm = nn.LayerNorm(d, eps=cfg["layer_norm_eps"])

    def forward(self, pixel_values):
        patches = self.embeddings.patch_embedding(pixel_values).flatten(2).transpose(1, 2)
        cls = self.embeddings.class_embedding.expand(patches.shape[0], 1, -1)
        x = torch.cat([cls, patches], dim=1) + self.embeddings.position_embedding.weight[None]
        x = self.encoder(self.pre_layrnorm(x))
        return self.post_layernorm(x[:, 0])


class CLIPTextModelWithProjection(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.text_model = TextTransformer(config["text_config"])
        self.text_projection = nn.Linear(config["text_config"]["hidden_size"], config["projection_dim"], bias=False)

    def forward(self, input_ids, attention_mask):
        return self.text_projection(self.text_model(input_ids, attention_mask))


class CLIPVisionModelWithProjection(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.vision_model = VisionTransformer(config["vision_config"])
        self.visual_projection = nn.Linear(config["vision_config"]["hidden_size"], config["projection_dim"], bias=False)

    def forward(self, pixel_values):
        return self.visual_projection(self.vision_model(pixel_values))


def init_clip_(module, factor=1.0):
    """Random initialisation in the spirit of HF's CLIPPreTrainedModel._init_weights."""
    for name, p in module.named_parameters():
        if p.dim() == 1 and ("layer_norm" in name or "layernorm" in name or "layrnorm" in name):
            nn.init.ones_(p) if name.endswith("weight") else nn.init.zeros_(p)
        elif name.endswith("bias"):
            nn.init.normal_(p, std=0.02 * factor)
        else:
            nn.init.normal_(p, std=factor / math.sqrt(p.shape[-1]))


def export_onnx(text_model, vision_model, out_dir, image_size, opset=14):
    import os

    os.makedirs(os.path.join(out_dir, "onnx"), exist_ok=True)
    text_model.eval()
    vision_model.eval()
    ids = torch.tensor([[49406, 320, 1125, 49407, 49407], [49406, 320, 1125, 539, 49407]])
    mask = torch.tensor([[1, 1, 1, 1, 0], [1, 1, 1, 1, 1]])
    torch.onnx.export(
        text_model, (ids, mask), os.path.join(out_dir, "onnx", "text_model.onnx"),
        input_names=["input_ids", "attention_mask"], output_names=["text_embeds"],
        dynamic_axes={"input_ids": {0: "batch_size", 1: "sequence_length"}, "attention_mask": {0: "batch_size", 1: "sequence_length"}, "text_embeds": {0: "batch_size"}},
        opset_version=opset, do_constant_folding=True,
    )
    pixels = torch.zeros(2, 3, image_size, image_size)
    torch.onnx.export(
        vision_model, (pixels,), os.path.join(out_dir, "onnx", "vision_model.onnx"),
        input_names=["pixel_values"], output_names=["image_embeds"],
        dynamic_axes={"pixel_values": {0: "batch_size"}, "image_embeds": {0: "batch_size"}},
        opset_version=opset, do_constant_folding=True,
    )
