"""The fine-tuned network in torch (training only): the base's first layers, mean pooling, two small heads.

Input is the token embeddings already looked up (`BaseModel.word_embeddings`): the 250k-row table stays frozen
and outside the exported graph, so the ONNX file holds only position embeddings, the encoder layers and the
heads. Outputs: the attack logit and the jailbreak-versus-injection logit of each window.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from shared.embeddings.e5_base import BaseModel


class Layer(nn.Module):
    def __init__(self, hidden: int, heads: int, intermediate: int, eps: float) -> None:
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(hidden, hidden)
        self.k = nn.Linear(hidden, hidden)
        self.v = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, hidden)
        self.attention_norm = nn.LayerNorm(hidden, eps=eps)
        self.up = nn.Linear(hidden, intermediate)
        self.down = nn.Linear(intermediate, hidden)
        self.output_norm = nn.LayerNorm(hidden, eps=eps)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        batch, length, hidden = x.shape
        size = hidden // self.heads

        def split(t: torch.Tensor) -> torch.Tensor:
            return t.view(batch, length, self.heads, size).transpose(1, 2)

        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(size) + bias
        context = (scores.softmax(-1) @ v).transpose(1, 2).reshape(batch, length, hidden)
        x = self.attention_norm(x + self.out(context))
        return self.output_norm(x + self.down(nn.functional.gelu(self.up(x))))


class GuardNet(nn.Module):
    def __init__(self, hidden: int, heads: int, intermediate: int, layers: int, positions: int, eps: float) -> None:
        super().__init__()
        self.positions = nn.Parameter(torch.zeros(positions, hidden))
        self.token_type = nn.Parameter(torch.zeros(hidden))
        self.embedding_norm = nn.LayerNorm(hidden, eps=eps)
        self.layers = nn.ModuleList(Layer(hidden, heads, intermediate, eps) for _ in range(layers))
        self.dropout = nn.Dropout(0.1)
        # Mean-pooled outputs are small (about 0.1 per dimension): normalised, the heads learn in a few hundred steps.
        self.pool_norm = nn.LayerNorm(hidden, eps=eps)
        self.attack = nn.Linear(hidden, 1)
        self.kind = nn.Linear(hidden, 1)

    def forward(self, embeddings: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        length = embeddings.shape[1]
        x = self.embedding_norm(embeddings + self.positions[:length] + self.token_type)
        x = self.dropout(x)
        bias = (1.0 - mask[:, None, None, :]) * -1e4
        for layer in self.layers:
            x = layer(x, bias)
        weights = mask[..., None]
        pooled = (x * weights).sum(1) / weights.sum(1).clamp(min=1.0)
        pooled = self.dropout(self.pool_norm(pooled))
        return self.attack(pooled).squeeze(-1), self.kind(pooled).squeeze(-1)


def from_base(base: BaseModel, layers: int) -> GuardNet:
    """A GuardNet whose embeddings and first `layers` encoder layers are the base model's (heads start small)."""
    net = GuardNet(base.hidden, base.heads, base.intermediate, layers, base.max_positions, base.eps)

    def load(parameter: torch.Tensor, name: str) -> None:
        value = torch.from_numpy(np.ascontiguousarray(base.tensor(name))).reshape(parameter.shape)
        with torch.no_grad():
            parameter.copy_(value)

    load(net.positions, "emb.pos")
    with torch.no_grad():
        net.token_type.copy_(torch.from_numpy(base.tensor("emb.type")[: base.hidden].copy()))
    load(net.embedding_norm.weight, "emb.ln.w")
    load(net.embedding_norm.bias, "emb.ln.b")
    names = {
        "q": "q", "k": "k", "v": "v", "out": "ao", "up": "fi", "down": "fo",
        "attention_norm": "aln", "output_norm": "oln",
    }  # fmt: skip
    for index, layer in enumerate(net.layers):
        for attribute, short in names.items():
            module = getattr(layer, attribute)
            load(module.weight, f"l{index}.{short}.w")
            load(module.bias, f"l{index}.{short}.b")
    with torch.no_grad():
        for head in (net.attack, net.kind):
            head.weight.normal_(0.0, 0.02)
            head.bias.zero_()
    return net
