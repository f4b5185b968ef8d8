"""snippets/complete/train.py as a template a reader adapts: importing it changes
nothing, and the two mistakes FSDP2 does not report are stopped with the fix.

The runs of the script itself are tests/test_complete.py's; these call its
functions in this process, on the CPU, without a process group.
"""

from __future__ import annotations

import importlib.util
import json
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


@pytest.mark.parametrize(
    ("argv", "fix"),
    [
        (["--fsdp"], "--fsdp needs torchrun"),
        (["--steps", "10"], "--warmup: 0 to --steps - 1"),  # the default warmup is 10
        (["--accum-steps", "0"], "--accum-steps must be 1 or more"),
        (["--batch-size", "0"], "--batch-size must be 1 or more"),
        (["--lr", "0"], "--lr must be above 0"),
        (["--clip", "-1"], "--clip must be 0 (off) or more"),
        (["--dropout", "1"], "--dropout must be in [0, 1)"),
        (["--num-workers", "-1"], "--num-workers must be 0 or more"),
        (["--eval-every", "-1"], "--eval-every must be 0 (off) or more"),
        (["--resume", "missing"], "--resume missing: not a complete checkpoint"),
        (["--keep", "-1"], "--keep must be 0 (all) or more"),
    ],
)
def test_a_command_line_that_cannot_work_stops_with_the_fix(argv, fix, monkeypatch, capsys):
    """Refused before anything runs, with argparse's usage and one line that names
    the fix (no traceback, exit status 2)."""
    monkeypatch.delenv("RANK", raising=False)
    monkeypatch.delenv("TORCHELASTIC_ERROR_FILE", raising=False)
    with pytest.raises(SystemExit) as stopped:
        load(TRAIN).main(argv)
    assert stopped.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.endswith(f": error: {fix}"), last


def test_only_rank_0_prints_the_fix_and_torchruns_report_ends_with_it(
    monkeypatch, capsys, tmp_path: Path
) -> None:
    """Under torchrun every rank stops the same way: rank 0 prints, each rank leaves
    the message in its error file, whose text torchrun's report shows last."""
    error_file = tmp_path / "error.json"
    monkeypatch.setenv("TORCHELASTIC_ERROR_FILE", str(error_file))
    monkeypatch.setenv("RANK", "1")
    with pytest.raises(SystemExit):
        load(TRAIN).main(["--accum-steps", "0"])
    assert capsys.readouterr().err == "", "rank 1 printed"
    report = json.loads(error_file.read_text())
    assert report["message"]["extraInfo"]["py_callstack"].endswith(
        "error: --accum-steps must be 1 or more"
    )


def test_an_optimizer_of_replaced_parameters_is_refused(capsys) -> None:
    """What ``fully_shard`` does to a model built before it: new parameters. The
    script builds its optimizer in distribute(), after sharding; the check stops one
    that holds the replaced parameters anyway."""
    train = load(TRAIN)
    args = train.parse_args([])
    net = train.make_model(args)
    optimizer = train.make_optimizer(net, args)
    train.check_optimizer(optimizer, net)  # the right order: accepted
    net[0].weight = nn.Parameter(net[0].weight.detach().clone())
    with pytest.raises(SystemExit):
        train.check_optimizer(optimizer, net)
    assert "build the optimizer after fully_shard" in capsys.readouterr().err


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


def test_a_resume_that_changes_the_global_batch_is_refused(monkeypatch, capsys, tmp_path):
    """The checkpoint's state means a global batch of 16 samples: resumed with 8, the
    run stops before loading the model, naming what differs and what to set."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RANK", raising=False)
    train = load(TRAIN)
    with torch.random.fork_rng():  # main() seeds torch: the other tests keep theirs
        train.main(["--steps", "2", "--warmup", "1", "--ckpt-every", "2", "--dropout", "0"])
        resume = ["--steps", "4", "--warmup", "1", "--resume", "checkpoints/step2"]
        with pytest.raises(SystemExit) as stopped:
            train.main([*resume, "--batch-size", "8"])
    assert stopped.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.endswith(
        "error: checkpoints/step2 has a global batch of 16, not 8: set --batch-size x "
        "--accum-steps x ranks"
    ), last
