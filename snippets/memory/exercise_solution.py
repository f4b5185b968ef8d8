import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.checkpoint import checkpoint_sequential

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


def block():
    return nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 64))


model = nn.Sequential(*[block() for _ in range(4)], nn.Linear(64, 10))
model = model.to(device)
x = torch.randn(32, 64).to(device)  # x: [B, 64]
y = torch.randint(0, 10, (32,)).to(device)  # y: [B]
x_val = torch.randn(32, 64).to(device)  # x_val: [B, 64]
y_val = torch.randint(0, 10, (32,)).to(device)  # y_val: [B]
params = {p.untyped_storage().data_ptr() for p in model.parameters()}
budget = 80_000  # bytes of activations one step may keep


def saved_bytes(run):
    counted = {}

    def pack(saved):
        ptr = saved.untyped_storage().data_ptr()
        if ptr not in params:
            counted[ptr] = saved.untyped_storage().nbytes()
        return saved

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda s: s):
        result = run()
    return sum(counted.values()), result


def train_loss():
    logits = checkpoint_sequential(model, 4, x, use_reentrant=False)
    return F.cross_entropy(logits, y)


def validate():
    with torch.inference_mode():
        losses = [F.cross_entropy(model(x_val), y_val) for _ in range(3)]
    return [loss.item() for loss in losses]


F.cross_entropy(model(x), y).backward()  # the reference: no checkpoint
reference = [p.grad.clone() for p in model.parameters()]
model.zero_grad()

train_saved, loss = saved_bytes(train_loss)
loss.backward()
same = all(
    p.grad is not None and torch.allclose(p.grad, r, atol=1e-6)
    for p, r in zip(model.parameters(), reference, strict=True)
)
val_saved, val_losses = saved_bytes(validate)
print(train_saved <= budget, same, val_saved == 0)
#> True True True
