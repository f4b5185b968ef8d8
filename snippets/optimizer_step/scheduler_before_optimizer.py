import textwrap
import warnings

import torch
from torch import nn
from torch.optim.lr_scheduler import StepLR

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(16, 4).to(device)  # x: [B, 4]
y = torch.randn(16, 1).to(device)  # y: [B, 1]
model = nn.Linear(4, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=2, gamma=0.5)

used = []
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    for _epoch in range(6):
        scheduler.step()  # wrong: before this epoch's optimizer.step()
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)  # loss: []
        loss.backward()
        used.append(optimizer.param_groups[0]["lr"])
        optimizer.step()

# Once: only the scheduler's first step() is checked.
print(len(caught), caught[0].category.__name__)
#> 1 UserWarning
print(textwrap.fill(str(caught[0].message), width=72))
'''
Detected call of `lr_scheduler.step()` before `optimizer.step()`. In
PyTorch 1.1.0 and later, you should call them in the opposite order:
`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this
will result in PyTorch skipping the first value of the learning rate
schedule. See more details at
https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate
'''
print(used)  # the first lr, 0.1, was used for one epoch instead of two
#> [0.1, 0.05, 0.05, 0.025, 0.025, 0.0125]
