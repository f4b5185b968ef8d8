import matplotlib.pyplot as plt
import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(64, 4).to(device)  # x: [N, 4]
y = x @ torch.tensor([[1.0], [-2.0], [0.5], [3.0]]).to(device)  # y: [N, 1]


def train(zero_grad, steps=30):
    """The loss per step of plain SGD, zeroing .grad or not."""
    torch.manual_seed(0)
    model = nn.Linear(4, 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    losses = []
    for _ in range(steps):
        if zero_grad:
            optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)  # loss: []
        loss.backward()  # adds to .grad: the sum of every step so far
        optimizer.step()
        losses.append(loss.item())
    return losses


zeroed, summed = train(zero_grad=True), train(zero_grad=False)
print("zeroed:", round(zeroed[0], 2), "to", round(zeroed[-1], 4))
#> zeroed: 17.84 to 0.0832
low = min(range(30), key=summed.__getitem__)
print("never zeroed: lowest", round(summed[low], 2), "at step", low)
#> never zeroed: lowest 0.76 at step 4
print("never zeroed, last:", round(summed[-1], 2))
#> never zeroed, last: 7.15

plt.plot(zeroed, label="zero_grad() every step")
plt.plot(summed, label="never zeroed")
plt.yscale("log")
plt.gca().yaxis.set_major_formatter("{x:g}")  # 0.01, not 10^-2
plt.xlabel("step")
plt.ylabel("MSE loss")
plt.legend()
plt.show()
# no-module-to-check: each run trains its own model inside train()
