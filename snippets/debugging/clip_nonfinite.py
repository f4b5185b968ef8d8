import textwrap

import torch
from torch import nn
from torch.nn.utils import clip_grad_norm_

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# expect-nonfinite-grad: model.*
x = torch.randn(8, 4)  # x: [B, 4]
y = x.sum(dim=1, keepdim=True)  # y: [B, 1]
x[3, 1] = float("nan")  # a corrupt value
x, y = x.to(device), y.to(device)
model = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
model = model.to(device)

loss = nn.functional.mse_loss(model(x), y)  # loss: []
loss.backward()
norm = clip_grad_norm_(model.parameters(), max_norm=1.0)  # norm: []
print("returned norm:", norm.item())  # no error: the caller must look
#> returned norm: nan

params = model.parameters()
try:
    clip_grad_norm_(params, max_norm=1.0, error_if_nonfinite=True)
except RuntimeError as err:
    first = str(err).split(". ")[0]
    for line in textwrap.wrap(first, 72, break_on_hyphens=False):
        print(line)
        #> The total norm of order 2.0 for gradients from `parameters` is
        #> non-finite, so it cannot be clipped
