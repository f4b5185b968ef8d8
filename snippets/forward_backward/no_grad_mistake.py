import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# expect-no-grad: model.0.*
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
model = model.to(device)
x = torch.randn(8, 3).to(device)
y = torch.randn(8, 1).to(device)
loss_fn = nn.MSELoss()

# The whole forward pass under no_grad: nothing is recorded.
with torch.no_grad():
    loss = loss_fn(model(x), y)  # loss: []
print(loss.requires_grad, loss.grad_fn)
#> False None
try:
    loss.backward()
except RuntimeError as err:
    message = str(err)
print(message)
#> element 0 of tensors does not require grad and does not have a grad_fn

# Only the first layer under no_grad: backward() succeeds, and says nothing.
with torch.no_grad():
    hidden = model[0](x)  # hidden: [B, 4]
loss = loss_fn(model[2](model[1](hidden)), y)  # loss: []
loss.backward()
print(model[0].weight.grad is None, model[2].weight.grad is None)
#> True False
