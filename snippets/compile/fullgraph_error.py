import torch
from torch import nn
from torch._dynamo.testing import CompileCounter

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        h = self.fc1(x).relu()
        if h.max() > 1:  # (1)!
            h = h / h.max()
        return self.fc2(h)


class FixedNet(Net):
    def forward(self, x):
        h = self.fc1(x).relu()
        h = h / h.max().clamp(min=1)  # (2)!
        return self.fc2(h)


x = (3 * torch.randn(32, 8)).to(device)  # x: [B, 8]
model = Net().to(device)
try:
    torch.compile(model, backend="eager", fullgraph=True)(x)
except torch._dynamo.exc.Unsupported as err:
    print(str(err).splitlines()[0])
    #> Data-dependent branching

broken = CompileCounter()  # (3)!
torch.compile(model, backend=broken)(x)  # fullgraph=False: it breaks
print("graphs without fullgraph=True:", broken.frame_count)
#> graphs without fullgraph=True: 2

fixed = FixedNet().to(device)
fixed.load_state_dict(model.state_dict())
counter = CompileCounter()
compiled = torch.compile(fixed, backend=counter, fullgraph=True)
out = compiled(x)  # out: [B, 4]
print(torch.allclose(out, model(x), atol=1e-6))
#> True
print("graphs with fullgraph=True:", counter.frame_count)
#> graphs with fullgraph=True: 1
