import matplotlib.pyplot as plt
import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
model = nn.Linear(4, 1).to(device)  # as DDP makes it on every rank
loss_fn = nn.MSELoss()


def batch(rank):
    """Rank `rank`'s own 8 samples, drawn as in ddp_step.py."""
    data = torch.Generator().manual_seed(rank)
    x = torch.randn(8, 4, generator=data).to(device)  # x: [B, 4]
    y = torch.randn(8, 1, generator=data).to(device)  # y: [B, 1]
    return x, y


def gradient(x, y):
    """The gradient of the mean loss on (x, y), as one vector."""
    model.zero_grad()
    loss_fn(model(x), y).backward()
    grads = [p.grad.reshape(-1) for p in model.parameters()]
    return torch.cat(grads).cpu()  # the weights w1 to w4, then b


# What each rank holds after its own backward, before the all-reduce:
before = [gradient(*batch(rank)) for rank in (0, 1)]
# What the all-reduce leaves on every rank: the average of the two.
after = (before[0] + before[1]) / 2
x0, y0 = batch(0)
x1, y1 = batch(1)
full = gradient(torch.cat([x0, x1]), torch.cat([y0, y1]))
print("rank 0:", [round(g, 3) for g in before[0].tolist()])
#> rank 0: [-0.265, 1.966, 0.216, -1.826, -0.956]
print("rank 1:", [round(g, 3) for g in before[1].tolist()])
#> rank 1: [0.341, 1.06, -1.884, -0.713, 0.544]
print("after: ", [round(g, 3) for g in after.tolist()])
#> after:  [0.038, 1.513, -0.834, -1.269, -0.206]
print("after == global batch:", torch.allclose(after, full, atol=1e-6))
#> after == global batch: True

names = ["w1", "w2", "w3", "w4", "b"]
bars = {"rank 0, before": before[0], "rank 1, before": before[1]}
bars["every rank, after"] = after
for i, (label, grads) in enumerate(bars.items()):
    at = [p - 0.27 + 0.27 * i for p in range(5)]
    plt.bar(at, grads.tolist(), width=0.27, label=label)
plt.xticks(range(5), names)
plt.xlabel("parameter")
plt.ylabel("gradient")
plt.legend()
plt.show()
