import math

import matplotlib.pyplot as plt
import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# The data and training of lr_too_high.py: features around +-10.
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


high, low = train(lr=0.1), train(lr=0.001)
first_inf = next(i for i, v in enumerate(high) if math.isinf(v))
print("lr=0.1: inf from step", first_inf, "NaN at step", len(high) - 1)
#> lr=0.1: inf from step 13 NaN at step 28
print("lr=0.001:", f"{low[0]:.1e}", "to", f"{low[-1]:.1e}")
#> lr=0.001: 1.8e+03 to 3.1e-02

plt.semilogy(high, label="lr=0.1")
plt.semilogy(low, label="lr=0.001")
plt.gca().yaxis.set_major_formatter("{x:g}")  # 0.01, not 10^-2
plt.axvline(len(high) - 1, color="C3", linestyle=":", label="lr=0.1 is NaN")
plt.xlabel("step")
plt.ylabel("MSE loss")
plt.legend()
plt.show()
# no-module-to-check: each run trains its own model inside train()
