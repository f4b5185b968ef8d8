import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(32, 4).to(device)  # x: [B, 4]
y = x.sum(dim=1, keepdim=True)  # y: [B, 1]
loss_fn = nn.MSELoss()


def check_step(model, optimizer):
    """Take one step; name the parameters without a grad, and unchanged."""
    named = dict(model.named_parameters())
    before = {name: p.detach().clone() for name, p in named.items()}
    optimizer.zero_grad()
    loss_fn(model(x), y).backward()
    optimizer.step()
    trainable = {n: p for n, p in named.items() if p.requires_grad}
    no_grad = [n for n, p in trainable.items() if p.grad is None]
    same = [n for n, p in named.items() if torch.equal(p, before[n])]
    return no_grad, same


model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
model = model.to(device)
model[0].requires_grad_(False)  # freeze the first layer for a warm-up
trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(trainable, lr=0.1)  # (1)!

no_grad, same = check_step(model, optimizer)
frozen = [n for n, p in model.named_parameters() if not p.requires_grad]
print("frozen:", frozen)
#> frozen: ['0.weight', '0.bias']
print("unchanged:", same)
#> unchanged: ['0.weight', '0.bias']

model[0].requires_grad_(True)  # the warm-up is over
no_grad, same = check_step(model, optimizer)
print("no gradient:", no_grad)
#> no gradient: []
print("unchanged:", same)
#> unchanged: ['0.weight', '0.bias']

optimizer.add_param_group({"params": model[0].parameters()})  # the fix
no_grad, same = check_step(model, optimizer)
print("unchanged after the fix:", same)
#> unchanged after the fix: []
