"""snippets/complete/train.py as a template a reader adapts: importing it changes
nothing, and the two mistakes FSDP2 does not report are stopped with the fix.

The runs of the script itself are tests/test_complete.py's; these call its
functions in this process, on the CPU, without a process group.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch
from torch import nn

from sitelib.site.layout import ROOT

TRAIN = ROOT / "snippets" / "complete" / "train.py"


def load(path: Path, name: str = "train_under_test"):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def import_side_effects(path: Path) -> list[str]:
    """What importing ``path`` changed that a caller would notice."""
    before = torch.get_rng_state()
    module = load(path)
    problems = []
    if not torch.equal(before, torch.get_rng_state()):
        problems.append(f"{path.name}: importing it reseeds torch's generator")
    if isinstance(getattr(module, "device", None), torch.device):
        problems.append(f"{path.name}: a module-level device, chosen at import")
    return problems


def test_importing_train_changes_nothing() -> None:
    assert import_side_effects(TRAIN) == []


def test_selftest_import_side_effects(tmp_path: Path) -> None:
    seeded = tmp_path / "seeded.py"
    seeded.write_text("import torch\ntorch.manual_seed(0)\ndevice = torch.device('cpu')\n")
    with torch.random.fork_rng():  # the other tests keep this process's generator
        torch.manual_seed(1234)
        problems = import_side_effects(seeded)
    assert problems == [
        "seeded.py: importing it reseeds torch's generator",
        "seeded.py: a module-level device, chosen at import",
    ]


def test_fsdp_without_torchrun_says_how(monkeypatch) -> None:
    monkeypatch.delenv("RANK", raising=False)
    with pytest.raises(SystemExit, match="--fsdp needs torchrun --nproc-per-node N"):
        load(TRAIN).main(["--fsdp"])


def test_an_optimizer_of_replaced_parameters_is_refused() -> None:
    """What ``fully_shard`` does to a model built before it: new parameters."""
    train = load(TRAIN)
    net = train.make_model(0.0)
    optimizer = train.make_optimizer(net, train.parse_args([]))
    train.check_optimizer(optimizer, net)  # the right order: accepted
    net[0].weight = nn.Parameter(net[0].weight.detach().clone())
    with pytest.raises(SystemExit, match="build the optimizer after fully_shard"):
        train.check_optimizer(optimizer, net)


def test_fsdp_units_are_found_in_a_module_subclass() -> None:
    """A model that is no Sequential, as most are: its linear layers, by type."""

    class SmallCNN(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(1, 4, 3)
            self.norm = nn.BatchNorm2d(4)
            self.head = nn.Linear(4, 10)

    train = load(TRAIN)
    model = SmallCNN()
    assert [m for m in model.modules() if train.is_fsdp_unit(m)] == [model.head]
