import torch
from torch import nn
from torch.nn.utils import clip_grad_norm_

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(16, 4).to(device)  # x: [B, 4]
y = torch.randn(16, 1).to(device)  # y: [B, 1]
model = nn.Linear(4, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def clipped_after(bad):  # backward, one gradient set to `bad`, clip
    optimizer.zero_grad()
    nn.functional.mse_loss(model(x), y).backward()
    model.bias.grad.fill_(bad)  # as if this gradient had overflowed
    return clip_grad_norm_(model.parameters(), max_norm=1.0)


# One inf: the norm is inf, and every gradient is multiplied by 0.
total_norm = clipped_after(float("inf"))  # total_norm: []
zeroed = bool((model.weight.grad == 0).all())
print(total_norm.item(), zeroed, model.bias.grad.item())
#> inf True nan
if torch.isfinite(total_norm):  # the check: step only when finite
    optimizer.step()
print(all(bool(p.isfinite().all()) for p in model.parameters()))
#> True

# One NaN: every gradient becomes NaN, the finite ones too.
total_norm = clipped_after(float("nan"))  # total_norm: []
print(total_norm.item(), bool(model.weight.grad.isnan().all()))
#> nan True
optimizer.step()  # unchecked: the NaN goes into the parameters
print(bool(model.weight.isnan().all()))
#> True
# The last gradients are NaN on purpose.
# expect-nonfinite-grad: model.*
