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


# expect-no-grad: model_0.*
model_0 = nn.Linear(4, 1).to(device)  # an earlier attempt, still defined
optimizer = torch.optim.SGD(model_0.parameters(), lr=0.1)  # (1)!
model_1 = nn.Linear(4, 1).to(device)  # the model that is trained

no_grad, same = check_step(model_1, optimizer)
print("no gradient:", no_grad)
#> no gradient: []
print("unchanged:", same)
#> unchanged: ['weight', 'bias']
held = {id(p) for group in optimizer.param_groups for p in group["params"]}
holds = all(id(p) in held for p in model_1.parameters())
print("optimizer holds model_1:", holds)
#> optimizer holds model_1: False

optimizer = torch.optim.SGD(model_1.parameters(), lr=0.1)  # the fix
no_grad, same = check_step(model_1, optimizer)
print("unchanged after the fix:", same)
#> unchanged after the fix: []
