# requires: torch>=2.13
import json
import tempfile
import warnings
from pathlib import Path

import torch
from torch.nn import LinearCrossEntropyOptions
from torch.nn import functional as F
from torch.profiler import ProfilerActivity, profile

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# The last layer of fused_loss_peak.py: 256 tokens, 32,768 classes.
tokens, width, vocab, chunk = 256, 128, 32768, 64
h = torch.randn(tokens, width).to(device).requires_grad_()
W = (torch.randn(vocab, width) / width**0.5).to(device).requires_grad_()
y = torch.randint(vocab, (tokens,)).to(device)
options = LinearCrossEntropyOptions(batch_chunk_size=chunk)
paths = {
    "reference": lambda: F.cross_entropy(h @ W.T, y),
    "fused": lambda: F.linear_cross_entropy(h, W, y, options=options),
}


def timeline(run):
    """The CPU's bytes alive while run() runs, all categories summed."""
    h.grad = W.grad = None
    with profile(
        activities=[ProfilerActivity.CPU],
        profile_memory=True,  # (1)!
        record_shapes=True,
        with_stack=True,
    ) as prof:
        run()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "timeline.json")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            prof.export_memory_timeline(str(path), device="cpu")  # (2)!
        times, sizes = json.loads(path.read_text())
    return [sum(by_category) for by_category in sizes], caught


MiB = 2**20
runs = {
    "reference step": lambda: paths["reference"]().backward(),
    "fused step": lambda: paths["fused"]().backward(),
    "fused forward": paths["fused"],
}
peaks = {}
for name, run in runs.items():
    alive, caught = timeline(run)
    peaks[name] = max(alive) - alive[0]  # above what was there before
print(caught[0].category.__name__, str(caught[0].message).split(" and ")[0])
#> FutureWarning `export_memory_timeline` is deprecated
print(f"reference step: peak {peaks['reference step'] / MiB:.0f} MiB")
#> reference step: peak 96 MiB
print(f"fused forward: peak {peaks['fused forward'] / MiB:.0f} MiB")
#> fused forward: peak 24 MiB
half = peaks["reference step"] / 2
print("fused step, under half of it:", peaks["fused step"] < half)
#> fused step, under half of it: True
# no-module-to-check: plain tensors; the profiler counts their memory
