import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Linear(3, 2).to(device)
x = torch.randn(4, 3).to(device)


def name(node):
    return type(node).__name__


print(model.weight.requires_grad, model.bias.requires_grad, x.requires_grad)
#> True True False

out = model(x)  # out: [B, 2]
loss = out.pow(2).mean()  # loss: []
print(out.requires_grad, name(out.grad_fn), name(loss.grad_fn))
#> True AddmmBackward0 MeanBackward0
print(model.weight.is_leaf, x.is_leaf, out.is_leaf, loss.is_leaf)
#> True True False False

# Walk the recorded graph from the loss back towards the parameters.
node = loss.grad_fn
while node.next_functions:
    print(name(node), "->", [name(n) for n, _ in node.next_functions])
    #> MeanBackward0 -> ['PowBackward0']
    #> PowBackward0 -> ['AddmmBackward0']
    #> AddmmBackward0 -> ['AccumulateGrad', 'NoneType', 'TBackward0']
    node = node.next_functions[0][0]

loss.backward()
print(model.weight.grad is not None, x.grad is None)
#> True True
