import matplotlib.pyplot as plt
import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# The batch, model and optimizer of overfit_one_batch.py.
x = torch.randn(16, 10).to(device)  # x: [B, 10]
y = torch.randint(0, 3, (16,)).to(device)  # y: [B]
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))
model = model.to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
loss_fn = nn.CrossEntropyLoss()

threshold, losses = 0.01, []
for _ in range(200):
    loss = loss_fn(model(x), y)  # loss: []
    losses.append(loss.item())
    if losses[-1] < threshold:
        break
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

steps = len(losses) - 1  # the last loss is below the threshold
print("first", round(losses[0], 2), "below", threshold, "at step", steps)
#> first 1.14 below 0.01 at step 47

plt.semilogy(losses, label="loss on the one batch")
plt.gca().yaxis.set_major_formatter("{x:g}")  # 0.01, not 10^-2
plt.axhline(threshold, color="C1", linestyle="--", label="threshold")
plt.xlabel("step")
plt.ylabel("cross-entropy loss")
plt.legend()
plt.show()
