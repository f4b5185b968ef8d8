import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(16, 4).to(device)  # x: [B, 4]
y = torch.randn(16, 1).to(device)  # y: [B, 1]
model = nn.Linear(4, 1).to(device)
before = [p.detach().clone() for p in model.parameters()]

# Without a closure, step() only reads .grad. No backward() ran, so there is
# nothing to use.
torch.optim.SGD(model.parameters(), lr=0.1).step()
pairs = zip(model.parameters(), before, strict=True)
unchanged = all(torch.equal(p, b) for p, b in pairs)
print(model.weight.grad is None, unchanged)
#> True True

# LBFGS needs the loss and the gradient several times per step: it asks for
# a closure.
optimizer = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=4)
losses = []


def closure():
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)  # loss: []
    loss.backward()  # runs inside optimizer.step(closure)
    losses.append(loss.item())
    return loss


try:
    optimizer.step()
except TypeError as err:
    print(err)
    #> LBFGS.step() missing 1 required positional argument: 'closure'

optimizer.step(closure)
# One step, four forward and backward passes:
print(len(losses), losses[-1] < losses[0])
#> 4 True
print(model.weight.grad is not None)  # set by the closure, inside step()
#> True

# SGD, like most optimizers, calls the closure once, before its update:
losses.clear()
torch.optim.SGD(model.parameters(), lr=0.1).step(closure)
print(len(losses))
#> 1
