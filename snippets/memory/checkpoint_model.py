import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Sequential(
    nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10)
).to(device)
x = torch.randn(32, 64).to(device)  # x: [B, 64]
y = torch.randint(0, 10, (32,)).to(device)  # y: [B]
params = {p.untyped_storage().data_ptr() for p in model.parameters()}
forwards = []
model.register_forward_pre_hook(lambda module, args: forwards.append(1))


def step(use_checkpoint):
    """Saved activation bytes, forward calls and gradients of one step."""
    counted = {}  # storage -> bytes, activations only

    def pack(saved):
        storage = saved.untyped_storage()
        if storage.data_ptr() not in params:
            counted[storage.data_ptr()] = storage.nbytes()
        return saved

    forwards.clear()
    model.zero_grad()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda s: s):
        if use_checkpoint:
            logits = checkpoint(model, x, use_reentrant=False)
        else:
            logits = model(x)
    F.cross_entropy(logits, y).backward()  # outside the count
    grads = [p.grad.clone() for p in model.parameters()]
    return sum(counted.values()), len(forwards), grads


plain_bytes, plain_calls, plain_grads = step(use_checkpoint=False)
ckpt_bytes, ckpt_calls, ckpt_grads = step(use_checkpoint=True)
print(f"plain:        {plain_bytes:>6,} bytes, {plain_calls} forward")
#> plain:        40,960 bytes, 1 forward
print(f"checkpointed: {ckpt_bytes:>6,} bytes, {ckpt_calls} forwards")
#> checkpointed:  8,192 bytes, 2 forwards
pairs = zip(plain_grads, ckpt_grads, strict=True)
print(all(torch.allclose(a, b, atol=1e-6) for a, b in pairs))
#> True
