import inspect

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Linear(4, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(16, 4).to(device)  # x: [B, 4]
y = torch.randn(16, 1).to(device)  # y: [B, 1]
loss_fn = nn.MSELoss()

# The default of set_to_none, in both places:
for zero_grad in (torch.optim.Optimizer.zero_grad, nn.Module.zero_grad):
    default = inspect.signature(zero_grad).parameters["set_to_none"].default
    print(zero_grad.__qualname__, default)
    #> Optimizer.zero_grad True
    #> Module.zero_grad True

loss_fn(model(x), y).backward()
optimizer.zero_grad()  # set_to_none=True: the gradient tensors are dropped
print(model.weight.grad)
#> None
try:
    print(model.weight.grad.norm())
except AttributeError as err:
    print(err)
    #> 'NoneType' object has no attribute 'norm'

# Code reading .grad between zero_grad() and backward() must allow None:
named = model.named_parameters()
norms = {name: p.grad.norm() for name, p in named if p.grad is not None}
print(norms)
#> {}

loss_fn(model(x), y).backward()
optimizer.zero_grad(set_to_none=False)  # the old behaviour: zero tensors
print(model.weight.grad.shape, model.weight.grad.abs().sum().item())
#> torch.Size([1, 4]) 0.0
