import textwrap

import torch
from torch import nn
from torch.nn.utils import clip_grad_norm_, get_total_norm

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(32, 20).to(device)  # x: [B, 20]
y = torch.randint(0, 10, (32,)).to(device)  # y: [B]
model = nn.Linear(20, 10).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler(device.type)


def log_grad_norm():
    """A logging helper that wants the true gradient norm."""
    scaler.unscale_(optimizer)  # looks harmless, but see below
    return get_total_norm([p.grad for p in model.parameters()]).item()


with torch.autocast(device.type, dtype=torch.float16):
    loss = nn.functional.cross_entropy(model(x), y)  # loss: [] float32
scaler.scale(loss).backward()
scaler.unscale_(optimizer)  # before clipping, as it should be
clip_grad_norm_(model.parameters(), max_norm=1.0)
try:
    log_grad_norm()  # a second unscale_() in the same iteration
except RuntimeError as err:
    print(textwrap.fill(str(err), width=60))
    '''
    unscale_() has already been called on this optimizer since
    the last update().
    '''
scaler.step(optimizer)
try:
    scaler.unscale_(optimizer)  # after step(), before update()
except RuntimeError as err:
    print(err)
    #> unscale_() is being called after step().
scaler.update()  # the next iteration may call unscale_() once again
