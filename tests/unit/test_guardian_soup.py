"""`finetune.soup`: the average of networks fine-tuned from one base (training only; needs the `train` extra)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed: `make guardian-train`")

from guardian_mcp.training.finetune import soup  # noqa: E402
from guardian_mcp.training.network import GuardNet  # noqa: E402


def net(seed: int) -> GuardNet:
    torch.manual_seed(seed)
    return GuardNet(hidden=8, heads=2, intermediate=16, layers=1, positions=4, eps=1e-12)


def test_a_soup_holds_the_mean_of_every_weight_and_leaves_its_members_alone() -> None:
    members = [net(1), net(2), net(3)]
    before = [{name: value.clone() for name, value in m.state_dict().items()} for m in members]
    averaged = soup(members)
    for name, value in averaged.state_dict().items():
        expected = torch.stack([state[name] for state in before]).mean(0)
        assert torch.allclose(value, expected), name
    for member, state in zip(members, before, strict=True):
        assert all(torch.equal(member.state_dict()[name], state[name]) for name in state)
    assert not averaged.training


def test_a_soup_of_one_is_that_network() -> None:
    only = net(1)
    assert soup([only]) is only
