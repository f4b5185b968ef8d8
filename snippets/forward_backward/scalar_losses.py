import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Linear(3, 2).to(device)
x = torch.randn(4, 3).to(device)

out = model(x)  # out: [B, 2]
try:
    out.backward()
except RuntimeError as err:
    print(err)
    #> grad can be implicitly created only for scalar outputs

# Supply d(objective)/d(out) yourself: all ones means "the objective is
# out.sum()".
out.backward(gradient=torch.ones_like(out))
with_ones = [p.grad.clone() for p in model.parameters()]

model.zero_grad()
model(x).sum().backward()
pairs = zip(model.parameters(), with_ones, strict=True)
print(all(torch.equal(p.grad, g) for p, g in pairs))
#> True

# "Scalar" means one element: a loss of shape [1] needs no gradient= either.
one = model(x).sum().reshape(1)  # one: [1]
one.backward()
print(one.shape)
#> torch.Size([1])
