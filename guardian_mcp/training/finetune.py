"""Fine-tune the encoder on windows of the composed records, and export it to int8 ONNX (training only).

A record is cut into windows as the scanner cuts it (`segment.windows`); each window is read with its prefix
(surface and structure tags). Labels per window: every window of a direct attack or jailbreak is an attack; in
an indirect record only the windows that hold the inserted payload are, the others are ordinary text of the
same document and count as benign; every window of a benign record is benign. Benign windows are subsampled so
an epoch stays short on two CPU cores, except those of records marked `hard` (files and pages that hold attack
strings as data, `quoted.py`): each of their windows is the kind of text the model must learn to pass.
"""

from __future__ import annotations

import copy
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from guardian_mcp.encoder import TextPreparer
from guardian_mcp.segment import clean, windows
from guardian_mcp.training.network import GuardNet, from_base
from shared.embeddings.e5_base import BaseModel


@dataclass(frozen=True)
class Example:
    text: str
    attack: float
    jailbreak: float
    record: int


def record_windows(text: str, surface: str) -> list[tuple[int, int, str]]:
    """(start, end, prefixed text) of each window of a record's text, as the scanner reads them."""
    text = clean(text)
    return [(w.start, w.end, w.prefix(surface) + text[w.start : w.end]) for w in windows(text)]


def examples(records: Sequence[dict[str, object]], rng: random.Random, easy_keep: float) -> list[Example]:
    out: list[Example] = []
    for index, record in enumerate(records):
        text, kind = clean(str(record["text"])), str(record["kind"])
        payload = clean(str(record.get("payload") or ""))
        where = text.find(payload) if payload else -1
        for start, end, window_text in record_windows(text, str(record["surface"])):
            if kind in ("direct", "jailbreak"):
                attack = 1.0
            elif kind == "indirect" and where >= 0:
                overlap = min(end, where + len(payload)) - max(start, where)
                attack = 1.0 if overlap >= min(40, len(payload) // 2 + 1) else 0.0
            else:
                attack = 0.0
            if kind == "indirect" and where < 0:
                continue  # the payload could not be located: no label for its windows
            if attack == 0.0 and kind == "benign" and not record.get("hard") and rng.random() > easy_keep:
                continue
            out.append(Example(window_text, attack, 1.0 if kind == "jailbreak" else 0.0, index))
    return out


def train(
    base: BaseModel,
    train_examples: Sequence[Example],
    *,
    layers: int,
    epochs: float,
    batch_size: int = 32,
    learning_rate: float = 1e-4,
    head_rate: float = 20.0,
    seed: int = 22,
    log: bool = True,
) -> GuardNet:
    torch.manual_seed(seed)
    rng = random.Random(seed)
    preparer = TextPreparer(base)
    ids = preparer.ids([example.text for example in train_examples])
    net = from_base(base, layers)
    net.train()
    positives = sum(example.attack for example in train_examples)
    positive_weight = (len(train_examples) - positives) / max(positives, 1.0)
    # The heads start from nothing and must grow fast; the encoder layers start from a good place and move
    # slowly. With one learning rate for both, 250 steps leave the heads too small to separate anything.
    heads = [*net.pool_norm.parameters(), *net.attack.parameters(), *net.kind.parameters()]
    head_ids = {id(parameter) for parameter in heads}
    body = [parameter for parameter in net.parameters() if id(parameter) not in head_ids]
    optimiser = torch.optim.AdamW(
        [{"params": body, "lr": learning_rate}, {"params": heads, "lr": learning_rate * head_rate}], weight_decay=0.01
    )
    steps = max(1, math.ceil(len(train_examples) / batch_size * epochs))
    warmup = max(1, steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda step: min((step + 1) / warmup, max(0.0, (steps - step) / (steps - warmup)))
    )
    attack_loss = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor(positive_weight))
    kind_loss = torch.nn.BCEWithLogitsLoss(reduction="none")
    # Batches of similar length: little padding, so little wasted compute.
    order = sorted(range(len(train_examples)), key=lambda i: len(ids[i]))
    batches = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
    started, step = time.monotonic(), 0
    while step < steps:
        rng.shuffle(batches)
        for batch in batches:
            if step >= steps:
                break
            embeddings, mask = preparer.batch([ids[i] for i in batch])
            attack_target = torch.tensor([train_examples[i].attack for i in batch])
            kind_target = torch.tensor([train_examples[i].jailbreak for i in batch])
            attack, kind = net(torch.from_numpy(embeddings), torch.from_numpy(mask))
            loss = attack_loss(attack, attack_target)
            # The type head learns only on attack windows: jailbreak or injection.
            loss = loss + (kind_loss(kind, kind_target) * attack_target).sum() / attack_target.sum().clamp(min=1.0)
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimiser.step()
            schedule.step()
            step += 1
            if log and (step % 50 == 0 or step == steps):
                elapsed = time.monotonic() - started
                print(f"step {step}/{steps} loss {loss.item():.4f} ({elapsed:.0f} s)", flush=True)
    net.eval()
    return net


def soup(nets: Sequence[GuardNet]) -> GuardNet:
    """The uniform average of the weights of networks fine-tuned from the same base (a "model soup", Wortsman et
    al., 2022): one network to run, with about the stability of their ensemble. The recipe moves a lot with the
    seed alone (52 to 114 of 355 attacks blocked across three seeds on the same data), and the body starts from
    the same base and moves little, so the members stay close enough to average; the heads are linear, so their
    average is the average of their logits over those shared features."""
    if len(nets) == 1:
        return nets[0]
    states = [net.state_dict() for net in nets]
    averaged = {name: torch.stack([state[name].float() for state in states]).mean(0) for name in states[0]}
    out = copy.deepcopy(nets[0])
    out.load_state_dict(averaged)
    out.eval()
    return out


def export_onnx(net: GuardNet, path: Path) -> None:
    """Write the network as ONNX (fp32) with dynamic batch and length, then an int8 copy beside it."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    net.eval()
    fp32 = path.with_suffix(".fp32.onnx")
    example = (torch.zeros(2, 16, net.positions.shape[1]), torch.ones(2, 16))
    torch.onnx.export(
        net,
        example,
        str(fp32),
        input_names=["embeddings", "mask"],
        output_names=["attack", "kind"],
        dynamic_axes={
            "embeddings": {0: "batch", 1: "length"},
            "mask": {0: "batch", 1: "length"},
            "attack": {0: "batch"},
            "kind": {0: "batch"},
        },
        opset_version=17,
        dynamo=False,
    )
    quantize_dynamic(str(fp32), str(path), weight_type=QuantType.QInt8)
    fp32.unlink()


def torch_logits(net: GuardNet, base: BaseModel, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
    preparer = TextPreparer(base)
    ids = preparer.ids(texts)
    out = np.zeros(len(texts))
    with torch.no_grad():
        for start in range(0, len(texts), batch_size):
            embeddings, mask = preparer.batch(ids[start : start + batch_size])
            attack, _ = net(torch.from_numpy(embeddings), torch.from_numpy(mask))
            out[start : start + batch_size] = attack.numpy()
    return out
