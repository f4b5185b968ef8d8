import textwrap
import warnings

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(64, 3).to(device)  # x: [B, 3]
y = x @ torch.tensor([1.0, -2.0, 0.5]).to(device)  # y: [B]
loss_fn = nn.MSELoss()


def train(target):
    torch.manual_seed(0)
    model = nn.Linear(3, 1).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(100):
        optimizer.zero_grad()
        loss = loss_fn(model(x), target)  # loss: []
        loss.backward()
        optimizer.step()
    return model


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    model = train(y)  # (1)!
for line in textwrap.wrap(str(caught[0].message), 66):
    print(line)
    #> Using a target size (torch.Size([64])) that is different to the
    #> input size (torch.Size([64, 1])). This will likely lead to
    #> incorrect results due to broadcasting. Please ensure they have the
    #> same size.

pred = model(x).detach()  # pred: [B, 1]
print("pred - y:", tuple((pred - y).shape))  # every pair (i, j)
#> pred - y: (64, 64)
print("spread of predictions:", round(pred.std().item(), 2))
#> spread of predictions: 0.0
mse = ((pred.squeeze(1) - y) ** 2).mean()  # mse: []
var = y.var(correction=0)  # var: []
print(f"error: {mse.item():.2f}, variance of y: {var.item():.2f}")
#> error: 3.36, variance of y: 3.36

fixed = train(y.unsqueeze(1))  # target [B, 1], like the output
mse = ((fixed(x).detach().squeeze(1) - y) ** 2).mean()  # mse: []
print("error after the fix:", round(mse.item(), 4))
#> error after the fix: 0.0
