import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(4, 8), nn.Tanh())
        self.head = nn.Linear(8, 1)

    def forward(self, x):  # x: [B, 4]
        return self.head(self.body(x))  # out: [B, 1]


def with_grad(module):
    named = module.named_parameters()
    return [name for name, p in named if p.grad is not None]


model = Net().to(device)
x = torch.randn(16, 4).to(device)  # x: [B, 4]
y = torch.randn(16, 1).to(device)  # y: [B, 1]
loss_fn = nn.MSELoss()

# 1. One optimizer for all parameters: both calls clear the same gradients.
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn(model(x), y).backward()
optimizer.zero_grad()
print(with_grad(model))
#> []
loss_fn(model(x), y).backward()
model.zero_grad()
print(with_grad(model))
#> []

# 2. One optimizer per part: each zero_grad() clears only its parameters.
body_optimizer = torch.optim.SGD(model.body.parameters(), lr=0.1)
head_optimizer = torch.optim.Adam(model.head.parameters(), lr=1e-3)
loss_fn(model(x), y).backward()
head_optimizer.zero_grad()
print(with_grad(model))
#> ['body.0.weight', 'body.0.bias']
model.zero_grad()
print(with_grad(model))
#> []

# 3. A parameter outside the model (a learnable loss scale): only the
# optimizer reaches it.
log_scale = nn.Parameter(torch.zeros((), device=device))  # log_scale: []
optimizer = torch.optim.SGD([*model.parameters(), log_scale], lr=0.1)
(loss_fn(model(x), y) * log_scale.exp()).backward()
model.zero_grad()
print(with_grad(model), log_scale.grad is None)
#> [] False
optimizer.zero_grad()
print(with_grad(model), log_scale.grad is None)
#> [] True
# Every gradient was cleared on purpose.
# expect-no-grad: model.*
