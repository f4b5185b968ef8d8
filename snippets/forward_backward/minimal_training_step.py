import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")  # (1)!

# Synthetic regression data: y is a noisy linear function of x.
x = torch.randn(64, 3)  # x: [N, 3]
w_true = torch.tensor([[2.0], [-1.0], [0.5]])  # w_true: [3, 1]
y = x @ w_true + 0.1 * torch.randn(64, 1)  # y: [N, 1]
x, y = x.to(device), y.to(device)  # (2)!

model = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 1))
model = model.to(device)
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

model.train()  # (3)!
for step in range(5):
    pred = model(x)  # pred: [N, 1]
    loss = loss_fn(pred, y)  # loss: []
    optimizer.zero_grad()  # (4)!
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 3))
    #> 0 3.896
    #> 1 3.256
    #> 2 2.751
    #> 3 2.261
    #> 4 1.763
