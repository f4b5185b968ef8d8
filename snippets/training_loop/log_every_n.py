import torch
from torch import nn
from torch.nn import functional as F
from torch.utils._python_dispatch import TorchDispatchMode

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


class HostReads(TorchDispatchMode):
    """Counts the reads of a tensor's value into Python (.item(), float(),
    int(), bool()): on a GPU, each one waits for every queued kernel."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func is torch.ops.aten._local_scalar_dense.default:
            self.count += 1
        return func(*args, **(kwargs or {}))


X = torch.randn(3200, 20)  # X: [N, 20]
y = torch.randint(0, 3, (3200,))  # y: [N]
batch, steps = 32, 100


def train(log_every):
    """100 steps; returns the losses it logged and its host reads."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 3))
    model = model.to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    logged = []
    running = torch.zeros((), device=device)  # a sum kept on the device
    with HostReads() as reads:
        for step in range(steps):
            rows = slice(step * batch, (step + 1) * batch)
            xb, yb = X[rows].to(device), y[rows].to(device)
            loss = F.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.detach()  # no read: stays a tensor
            if (step + 1) % log_every == 0:
                logged.append(running.item() / log_every)  # one read
                running.zero_()
    return logged, reads.count


every_step, reads_1 = train(log_every=1)
every_10, reads_10 = train(log_every=10)
print(f"every step: {len(every_step)} values, {reads_1} host reads")
#> every step: 100 values, 100 host reads
print(f"every 10 steps: {len(every_10)} values, {reads_10} host reads")
#> every 10 steps: 10 values, 10 host reads
windows = torch.tensor(every_step).reshape(-1, 10).mean(dim=1)
print(torch.allclose(windows, torch.tensor(every_10)))
#> True
# no-module-to-check: each run builds and trains its own model in train()
