import matplotlib.pyplot as plt
import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(64, 3)  # x: [N, 3]
w_true = torch.tensor([[2.0], [-1.0], [0.5]])  # w_true: [3, 1]
y = x @ w_true + 0.1 * torch.randn(64, 1)  # y: [N, 1]
x, y = x.to(device), y.to(device)

model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))
model = model.to(device)
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

losses = []
model.train()
for _ in range(50):
    loss = loss_fn(model(x), y)  # loss: []
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())  # a Python float: no graph is kept alive

first, last = losses[0], losses[-1]
print(round(first, 3), round(last, 2), last < first / 10)
#> 3.896 0.03 True

plt.plot(losses)
plt.xlabel("step")
plt.ylabel("training loss (MSE)")
plt.title("The loss falls as the steps repeat")
plt.show()
