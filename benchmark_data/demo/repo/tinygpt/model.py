"""Model definition. The docstring promises label smoothing of 0.15; nothing applies it."""

from dataclasses import dataclass

import torch
from torch import nn

SIZES = {
    "small": {"n_layers": 6, "d_model": 384, "n_heads": 6},
    "base": {"n_layers": 12, "d_model": 768, "n_heads": 12},
}


@dataclass
class ModelConfig:
    n_layers: int = 6
    d_model: int = 384
    n_heads: int = 6
    vocab_size: int = 50304
    dropout: float = 0.0


class Attention(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.d_head = config.d_model // config.n_heads
        self.attn_scale = self.d_head ** -0.5
        self.qkv = nn.Linear(config.d_model, 3 * config.d_model)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        weights = torch.softmax(q @ k.transpose(-2, -1) * self.attn_scale, dim=-1)
        return weights @ v


class TinyGPT(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.embed = nn.Embedding(config.vocab_size, config.d_model)
        self.blocks = nn.ModuleList(Attention(config) for _ in range(config.n_layers))
        self.drop = nn.Dropout(config.dropout)

    def forward(self, tokens):
        x = self.drop(self.embed(tokens))
        for block in self.blocks:
            x = x + block(x)
        return x
