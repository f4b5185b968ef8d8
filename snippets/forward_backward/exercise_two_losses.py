import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Linear(4, 2).to(device)  # two outputs, one loss for each
x = torch.randn(8, 4).to(device)
y_a = torch.randn(8).to(device)
y_b = torch.randn(8).to(device)

out = model(x)  # out: [B, 2]
loss_a = nn.functional.mse_loss(out[:, 0], y_a)  # loss_a: []
loss_b = nn.functional.l1_loss(out[:, 1], y_b)  # loss_b: []
loss_a.backward()
try:
    loss_b.backward()
except RuntimeError as err:
    print(str(err).split(" (")[0])
    #> Trying to backward through the graph a second time
