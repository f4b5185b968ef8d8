import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Linear(3, 1).to(device)
x = torch.randn(8, 3).to(device)
y = torch.randn(8, 1).to(device)
loss_fn = nn.MSELoss()

loss = loss_fn(model(x), y)  # loss: []
loss.backward()
try:
    loss.backward()
except RuntimeError as err:
    print(str(err).split(" (")[0])
    #> Trying to backward through the graph a second time

model.zero_grad()
loss = loss_fn(model(x), y)  # loss: []
loss.backward(retain_graph=True)
once = [p.grad.clone() for p in model.parameters()]
loss.backward()
pairs = zip(model.parameters(), once, strict=True)
print(all(torch.allclose(p.grad, 2 * g) for p, g in pairs))
#> True

# A graph that saved no tensors can be walked again: add and sum need none.
w = torch.zeros(3).to(device).requires_grad_()
total = (w + 1).sum()  # total: []
total.backward()
total.backward()
print(w.grad.tolist())
#> [2.0, 2.0, 2.0]
