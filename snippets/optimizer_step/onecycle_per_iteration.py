import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(48, 4).to(device)  # x: [N, 4]
y = torch.randn(48, 1).to(device)  # y: [N, 1]
model = nn.Linear(4, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)  # no momentum set
epochs, steps_per_epoch = 2, 3
scheduler = torch.optim.lr_scheduler.OneCycleLR(
    optimizer, max_lr=0.1, epochs=epochs, steps_per_epoch=steps_per_epoch
)
batches = list(zip(x.split(16), y.split(16), strict=True))

used_lr, used_momentum = [], []
for _epoch in range(epochs):
    for xb, yb in batches:  # xb: [B, 4], yb: [B, 1]
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(xb), yb)  # loss: []
        loss.backward()
        group = optimizer.param_groups[0]
        used_lr.append(round(group["lr"], 3))
        used_momentum.append(round(group["momentum"], 3))
        optimizer.step()
        scheduler.step()  # once per optimizer step, which OneCycleLR counts

# Warm up to max_lr, then anneal, over epochs * steps_per_epoch updates:
print(used_lr)
#> [0.004, 0.099, 0.081, 0.046, 0.013, 0.0]
# cycle_momentum=True, the default: momentum cycles the other way.
print(used_momentum)
#> [0.95, 0.851, 0.869, 0.904, 0.937, 0.95]
# So this SGD kept a momentum buffer:
print(sorted(optimizer.state[model.weight]))
#> ['momentum_buffer']

try:
    scheduler.step()  # one call more than the schedule has
except ValueError as err:
    print(err)
    #> Tried to step 7 times. The specified number of total steps is 6
