import math

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# Features that were never normalized: values around +-10.
x = (10 * torch.randn(64, 4)).to(device)  # x: [B, 4]
y = x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]]).to(device)  # y: [B, 1]


def train(lr, steps=40):
    torch.manual_seed(0)
    model = nn.Linear(4, 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)  # loss: []
        losses.append(loss.item())
        if math.isnan(losses[-1]):
            break
        loss.backward()
        optimizer.step()
    return losses


losses = train(lr=0.1)
print("first losses:", [f"{v:.1e}" for v in losses[:4]])
#> first losses: ['1.8e+03', '6.8e+05', '3.0e+08', '1.4e+11']
first_inf = next(i for i, v in enumerate(losses) if math.isinf(v))
print("loss is inf from step", first_inf)
#> loss is inf from step 13
print("loss is nan at step", len(losses) - 1)
#> loss is nan at step 28

losses = train(lr=0.001)
print("lr=0.001:", [f"{v:.1e}" for v in losses[:4]])
#> lr=0.001: ['1.8e+03', '1.1e+03', '7.3e+02', '4.7e+02']
print("after 40 steps:", f"{losses[-1]:.1e}")
#> after 40 steps: 3.1e-02
# no-module-to-check: each run trains its own model inside train()
