import warnings

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

layer = nn.Linear(4, 1).to(device)
x = torch.randn(8, 4).to(device)  # x: [B, 4]

# An ordinary backward: .grad is a plain tensor.
layer(x).pow(2).mean().backward()
grad_before = layer.weight.grad
first = grad_before.clone()  # first: [1, 4]

# create_graph=True records the gradient computation itself, for
# derivatives of it. PyTorch warns about it once per process, unless
# set_warn_always(True) asks for every time.
torch.set_warn_always(True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    layer(x).pow(2).mean().backward(create_graph=True)
torch.set_warn_always(False)
print(str(caught[0].message).split(" between")[0])
#> Using backward() with create_graph=True will create a reference cycle
print(layer.weight.grad is grad_before)  # a new tensor, not the old one
#> False
print(torch.equal(grad_before, first))  # the old tensor was left as it was
#> True
print(torch.allclose(layer.weight.grad, 2 * first))  # still the sum
#> True
print(layer.weight.grad.grad_fn is not None)  # and it is part of a graph
#> True

# Drop such gradients when done: they hold a graph and a reference cycle.
layer.zero_grad()
# expect-no-grad: layer.*
