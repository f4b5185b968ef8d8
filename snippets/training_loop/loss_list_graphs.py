import textwrap

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# stays-on-cpu: X, y
X = torch.randn(256, 20)  # X: [N, 20]
y = (X[:, :3].sum(dim=1) > 0).long()  # y: [N]
loader = DataLoader(TensorDataset(X, y), 64, generator=torch.Generator())

model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 2))
model = model.to(device)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

losses = []  # the bug: tensors
running = 0.0  # the bug, in its most common form: running += loss
numbers = []  # the fix: Python floats
for xb, yb in loader:  # xb: [B, 20], yb: [B]
    xb, yb = xb.to(device), yb.to(device)  # xb: [B, 20], yb: [B]
    optimizer.zero_grad()
    loss = loss_fn(model(xb), yb)  # loss: []
    loss.backward()
    optimizer.step()
    losses.append(loss)
    running += loss
    numbers.append(loss.item())

# Each one holds its graph:
print(losses[0].requires_grad, losses[0].grad_fn is not None)
#> True True
# One graph linking every step:
print(running.requires_grad, running.grad_fn is not None)
#> True True
print(isinstance(numbers[0], float))  # a float holds no graph
#> True
kept = loss.detach()  # kept: []
# A tensor cut from the graph holds none either:
print(kept.requires_grad, kept.grad_fn is None)
#> False True

# backward() freed the activations each graph had saved; its nodes remain
try:
    saved = losses[0].grad_fn._saved_self
except RuntimeError as err:
    print(textwrap.fill(str(err).split(". ")[0], width=70))
    '''
    Trying to backward through the graph a second time (or directly access
    saved tensors after they have already been freed)
    '''

# Without backward() (validation outside inference_mode), nothing frees them
model.eval()
val_losses = [
    loss_fn(model(xb.to(device)), yb.to(device)) for xb, yb in loader
]
saved = val_losses[0].grad_fn._saved_self  # activations still held
print(isinstance(saved, torch.Tensor))
#> True
with torch.inference_mode():
    val_numbers = [
        loss_fn(model(xb.to(device)), yb.to(device)).item()
        for xb, yb in loader
    ]
print(isinstance(val_numbers[0], float))
#> True
