import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
model = model.to(device)
x = torch.randn(8, 3).to(device)
y = torch.randn(8, 1).to(device)
loss_fn = nn.MSELoss()

loss = loss_fn(model(x), y)  # loss: []
print(loss.shape)
#> torch.Size([])
print(all(p.grad is None for p in model.parameters()))
#> True

loss.backward()
for name, p in model.named_parameters():
    print(name, tuple(p.shape), p.grad.shape == p.shape)
    #> 0.weight (4, 3) True
    #> 0.bias (4,) True
    #> 2.weight (1, 4) True
    #> 2.bias (1,) True
first = [p.grad.clone() for p in model.parameters()]

# A second forward and backward on the same batch, without clearing .grad:
loss_fn(model(x), y).backward()
pairs = zip(model.parameters(), first, strict=True)
print(all(torch.allclose(p.grad, 2 * g) for p, g in pairs))
#> True
