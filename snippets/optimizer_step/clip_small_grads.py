import torch
from torch import nn
from torch.nn.utils import clip_grad_norm_

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(16, 4).to(device)  # x: [B, 4]
y = torch.randn(16, 1).to(device)  # y: [B, 1]
model = nn.Linear(4, 1).to(device)

loss = nn.functional.mse_loss(model(x), y)  # loss: []
loss.backward()
w_grad = model.weight.grad.clone()  # w_grad: [1, 4]

max_norm = 10.0
total_norm = clip_grad_norm_(model.parameters(), max_norm)  # total_norm: []
print(round(total_norm.item(), 3), total_norm.item() < max_norm)
#> 2.343 True
print(torch.equal(model.weight.grad, w_grad))  # under max_norm: untouched
#> True
