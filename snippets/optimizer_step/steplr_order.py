import torch
from torch import nn
from torch.optim.lr_scheduler import StepLR

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(64, 4).to(device)  # x: [N, 4]
y = torch.randn(64, 1).to(device)  # y: [N, 1]
model = nn.Linear(4, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=2, gamma=0.5)
batches = list(zip(x.split(16), y.split(16), strict=True))

used = []  # the lr each epoch's updates were made with
for _epoch in range(6):
    for xb, yb in batches:  # xb: [B, 4], yb: [B, 1]
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(xb), yb)  # loss: []
        loss.backward()
        optimizer.step()
    used.append(optimizer.param_groups[0]["lr"])
    scheduler.step()  # once per epoch, after that epoch's optimizer steps

print(used)
#> [0.1, 0.1, 0.05, 0.05, 0.025, 0.025]
# 6 scheduler steps, and the lr for epoch 6:
print(scheduler.last_epoch, scheduler.get_last_lr())
#> 6 [0.0125]
