import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(16, 4).to(device)  # x: [B, 4]
y = torch.randn(16, 1).to(device)  # y: [B, 1]
model = nn.Linear(4, 1).to(device)
optimizer = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=4)
losses = []


def closure():
    optimizer.zero_grad()
    with torch.autocast(device.type, dtype=amp_dtype):
        loss = nn.functional.mse_loss(model(x), y)  # loss: [] float32
    scaler.scale(loss).backward()
    losses.append(loss.item())
    return loss


# float16: the scaler is on, and refuses the closure LBFGS needs.
amp_dtype = torch.float16
scaler = torch.amp.GradScaler(device.type)
try:
    scaler.step(optimizer, closure=closure)
except RuntimeError as err:
    print(err)
    #> Closure use is not currently supported if GradScaler is enabled.

# bfloat16 needs no scaler: a disabled one passes the closure through.
amp_dtype = torch.bfloat16
scaler = torch.amp.GradScaler(device.type, enabled=False)
scaler.step(optimizer, closure=closure)  # optimizer.step(closure=closure)
print(len(losses), losses[-1] < losses[0])
#> 4 True
