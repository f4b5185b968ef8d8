# requires: cuda
import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


def block():
    return nn.Sequential(
        nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 256)
    )


model = nn.Sequential(*[block() for _ in range(8)]).to(device)
x = torch.randn(4096, 256).to(device)  # x: [B, 256]
there = {t.untyped_storage().data_ptr() for t in [*model.parameters(), x]}
counted = {}  # storages saved by the plain forward, not there before


def pack(saved):
    ptr = saved.untyped_storage().data_ptr()
    if ptr not in there:
        counted[ptr] = saved.untyped_storage().nbytes()
    return saved


def forward(mode):
    if mode == "checkpoint":
        h = x
        for b in model:
            h = checkpoint(b, h, use_reentrant=False)
        return h
    hooks = torch.autograd.graph.saved_tensors_hooks(pack, lambda s: s)
    if mode == "offload":
        hooks = torch.autograd.graph.save_on_cpu(pin_memory=True)
    with hooks:
        return model(x)


def peak_bytes(mode):
    """Peak device memory of one forward and backward, above the start."""
    model.zero_grad(set_to_none=True)
    counted.clear()
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    start = torch.cuda.memory_allocated()
    forward(mode).sum().backward()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() - start


peak_bytes("plain")  # warm-up: the first step allocates kernel workspaces
# plain last: `counted` then holds what its forward saved
peaks = {m: peak_bytes(m) for m in ("checkpoint", "offload", "plain")}
print(peaks["plain"] >= sum(counted.values()))  # (1)!
#> True
print(peaks["checkpoint"] < peaks["plain"])
#> True
print(peaks["offload"] < peaks["plain"])
#> True
