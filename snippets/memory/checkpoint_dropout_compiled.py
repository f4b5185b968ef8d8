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


def forward(preserve_rng_state):
    if preserve_rng_state is None:  # no checkpoint
        return block(x)  # logits: [B, 10]
    return checkpoint(
        block,
        x,
        use_reentrant=False,
        preserve_rng_state=preserve_rng_state,
    )


def grads(run, preserve_rng_state=None):
    block.zero_grad()
    torch.manual_seed(1)  # the same dropout mask in every forward
    F.cross_entropy(run(preserve_rng_state), y).backward()
    return [p.grad.clone() for p in block.parameters()]


def same(a, b):
    pairs = zip(a, b, strict=True)
    return all(torch.allclose(u, v, atol=1e-6) for u, v in pairs)


compiled = torch.compile(forward, backend="aot_eager")
for mode, run in (("eager", forward), ("compiled", compiled)):
    plain = grads(run)
    kept = same(plain, grads(run, True))
    redrawn = same(plain, grads(run, False))
    print(f"{mode}: state preserved {kept}, not preserved {redrawn}")
    #> eager: state preserved True, not preserved False
    #> compiled: state preserved True, not preserved True
