import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 16)
        self.dropout = nn.Dropout(p=0.5)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):  # x: [B, 20]
        h = self.dropout(torch.relu(self.fc1(x)))  # h: [B, 16]
        return self.fc2(h)  # logits: [B, 3]


model = SmallNet().to(device)
x = torch.randn(8, 20).to(device)  # x: [B, 20]
calls = []


def log_call(module, args, output):  # (1)!
    calls.append(type(module).__name__)


model.register_forward_hook(log_call)
model.fc1.register_forward_hook(log_call)

out_call = model(x)
print(calls)
#> ['Linear', 'SmallNet']
calls.clear()
out_forward = model.forward(x)
print(calls)
#> ['Linear']

# Autograd records both: it works per tensor operation, not per module call.
print(out_call.grad_fn is not None, out_forward.grad_fn is not None)
#> True True

# Grad mode is global: it reaches .forward() too.
with torch.no_grad():
    print(model.forward(x).requires_grad)
    #> False

# train/eval is the module's `training` flag, read inside forward.
model.train()
print(torch.equal(model.forward(x), model.forward(x)))  # (2)!
#> False
model.eval()
print(torch.equal(model(x), model.forward(x)))
#> True
