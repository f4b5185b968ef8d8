import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

block = nn.Sequential(
    nn.Linear(64, 256), nn.ReLU(), nn.Dropout(p=0.5), nn.Linear(256, 10)
).to(device)
x = torch.randn(32, 64).to(device)  # x: [B, 64]
y = torch.randint(0, 10, (32,)).to(device)  # y: [B]


def grads(preserve_rng_state=None):
    block.zero_grad()
    torch.manual_seed(1)  # the same dropout mask in every forward
    if preserve_rng_state is None:
        logits = block(x)  # logits: [B, 10]
    else:
        logits = checkpoint(
            block, x, use_reentrant=False,
            preserve_rng_state=preserve_rng_state,
        )
    F.cross_entropy(logits, y).backward()
    return [p.grad.clone() for p in block.parameters()]


def same(a, b):
    pairs = zip(a, b, strict=True)
    return all(torch.allclose(u, v, atol=1e-6) for u, v in pairs)


plain = grads()
print(same(plain, grads(preserve_rng_state=True)))
#> True
print(same(plain, grads(preserve_rng_state=False)))
#> False
