import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


class PairDistance(nn.Module):
    """Distances between all pairs of rows, written out by hand."""

    def __init__(self, eps=0.0):
        super().__init__()
        self.eps = eps

    def forward(self, e):  # e: [B, D]
        diff = e[:, None, :] - e[None, :, :]  # diff: [B, B, D]
        return (diff.pow(2).sum(-1) + self.eps).sqrt()  # dist: [B, B]


# Learn 2-d points whose distances match those of 4-d data.
x = torch.randn(6, 4).to(device)  # x: [B, 4]
target = torch.cdist(x, x)  # target: [B, B]
layers = [nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2), PairDistance()]
model = nn.Sequential(*layers).to(device)

first_bad = []  # the first layer whose backward made inf or NaN


def watch(name, module):
    label = f"{name} ({type(module).__name__})"

    def grad_hook(grad):  # the gradient this layer sends to its input
        if not first_bad and not grad.isfinite().all():
            first_bad.append(label)

    def pre_hook(module, args):  # (1)!
        if args[0].requires_grad:
            args[0].register_hook(grad_hook)

    return module.register_forward_pre_hook(pre_hook)


handles = [watch(name, m) for name, m in model.named_children()]
loss = nn.functional.mse_loss(model(x), target)  # loss: []
loss.backward()
print("loss is finite:", torch.isfinite(loss).item())
#> loss is finite: True
print("first non-finite gradient from:", first_bad)
#> first non-finite gradient from: ['3 (PairDistance)']

model[3].eps = 1e-12  # the fix: keep sqrt away from 0
first_bad.clear()
model.zero_grad()
nn.functional.mse_loss(model(x), target).backward()
print("after the fix:", first_bad)
#> after the fix: []
for handle in handles:
    handle.remove()
