import torch
from torch import nn
from torch.nn.utils import clip_grad_norm_, get_total_norm

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(16, 4).to(device)  # x: [B, 4]
# Large targets make large gradients, the case clipping is for.
y = (100 * torch.randn(16, 1)).to(device)  # y: [B, 1]
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
model = model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
max_norm = 1.0

optimizer.zero_grad()
loss = nn.functional.mse_loss(model(x), y)  # loss: []
loss.backward()
grads = [p.grad.clone() for p in model.parameters()]  # unclipped copies

total_norm = clip_grad_norm_(model.parameters(), max_norm)  # total_norm: []
optimizer.step()  # the update uses the clipped gradients

# The returned norm is the one BEFORE clipping: the 2-norm of all gradients
# as one vector.
norm = round(total_norm.item(), 3)
print(type(total_norm).__name__, total_norm.shape, norm)
#> Tensor torch.Size([]) 60.652
print(torch.allclose(total_norm, get_total_norm(grads)))
#> True

clipped = [p.grad for p in model.parameters()]
clipped_norm = get_total_norm(clipped)  # clipped_norm: []
within = clipped_norm.item() <= max_norm + 1e-6  # float32 slack
print(round(clipped_norm.item(), 3), within)
#> 1.0 True

# Every gradient was scaled by the same factor: the direction is unchanged.
scale = max_norm / (total_norm.item() + 1e-6)
pairs = zip(clipped, grads, strict=True)
print(all(torch.allclose(c, g * scale) for c, g in pairs))
#> True
