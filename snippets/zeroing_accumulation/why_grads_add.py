import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

layer = nn.Linear(4, 4, bias=False).to(device)
x = torch.randn(8, 4).to(device)  # x: [B, 4]

# One forward pass that uses the same weight twice.
out = layer(layer(x))  # out: [B, 4]
out.pow(2).mean().backward()

# The same computation with each use given its own copy of the weight.
w_inner = layer.weight.detach().clone().requires_grad_()  # w_inner: [4, 4]
w_outer = layer.weight.detach().clone().requires_grad_()  # w_outer: [4, 4]
out_split = x @ w_inner.T @ w_outer.T  # out_split: [B, 4]
loss_split = out_split.pow(2).mean()  # loss_split: []
g_inner, g_outer = torch.autograd.grad(loss_split, (w_inner, w_outer))
print(torch.allclose(layer.weight.grad, g_inner + g_outer))
#> True

# Across backward() calls, the same rule: the new gradient is added to
# .grad, in place.
grad_before = layer.weight.grad
first = grad_before.clone()  # first: [4, 4]
layer(layer(x)).pow(2).mean().backward()
same_tensor = layer.weight.grad is grad_before
print(same_tensor, torch.allclose(layer.weight.grad, 2 * first))
#> True True
