import matplotlib.pyplot as plt
import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# The model, batch and counting of training_memory.py.
model = nn.Sequential(
    nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10)
).to(device)
x = torch.randn(32, 64).to(device)  # x: [B, 64]
y = torch.randint(0, 10, (32,)).to(device)  # y: [B]
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
params = list(model.parameters())
ptrs = {p.untyped_storage().data_ptr() for p in params}


def step(use_checkpoint):
    """The bytes of each kind of training memory after one step."""
    saved = {}  # storage -> bytes, activations only

    def pack(t):
        storage = t.untyped_storage()
        if storage.data_ptr() not in ptrs:
            saved[storage.data_ptr()] = storage.nbytes()
        return t

    optimizer.zero_grad()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        if use_checkpoint:
            logits = checkpoint(model, x, use_reentrant=False)
        else:
            logits = model(x)  # logits: [B, 10]
    F.cross_entropy(logits, y).backward()
    optimizer.step()
    state = [t for s in optimizer.state.values() for t in s.values()]
    return {
        "parameters": sum(p.nbytes for p in params),
        "gradients": sum(p.grad.nbytes for p in params),
        "Adam state": sum(t.nbytes for t in state),
        "activations": sum(saved.values()),
    }


runs = {"plain": step(False), "checkpointed": step(True)}
print("bytes of:", ", ".join(runs["plain"]))
#> bytes of: parameters, gradients, Adam state, activations
for name, counted in runs.items():
    print(f"{name}:", *(f"{n:,}" for n in counted.values()))
    #> plain: 76,840 76,840 153,696 40,960
    #> checkpointed: 76,840 76,840 153,696 8,192

bottom = [0, 0]
for kind in runs["plain"]:
    heights = [counted[kind] for counted in runs.values()]
    plt.bar(list(runs), heights, bottom=bottom, label=kind)
    bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
plt.xlabel("one training step")
plt.ylabel("bytes")
plt.ylim(0, 500_000)  # room above the bars for the legend
plt.legend(loc="upper center", ncols=2)
plt.show()
