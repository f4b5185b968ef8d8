import matplotlib.pyplot as plt
import torch
from torch import nn
from torch._dynamo.testing import CompileCounter

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
model = model.to(device)
sizes = [32, 16, 8, 24, 12, 40, 4]  # a new batch size every call


def graphs_per_call(dynamic=None, mark=False):
    """How many graphs Dynamo has compiled after each call."""
    torch._dynamo.reset()
    counter = CompileCounter()  # counts graphs; compiles nothing
    compiled = torch.compile(model, backend=counter, dynamic=dynamic)
    counts = []
    for batch in sizes:
        x = torch.randn(batch, 8).to(device)  # x: [B, 8]
        if mark:
            torch._dynamo.mark_dynamic(x, 0)  # the batch size varies
        compiled(x)
        counts.append(counter.frame_count)
    return counts


runs = {
    "dynamic=False": graphs_per_call(dynamic=False),
    "default": graphs_per_call(),
    "mark_dynamic(x, 0)": graphs_per_call(mark=True),
}
for name, counts in runs.items():
    print(f"{name + ':':<19}", counts)
    #> dynamic=False:      [1, 2, 3, 4, 5, 6, 7]
    #> default:            [1, 2, 2, 2, 2, 2, 2]
    #> mark_dynamic(x, 0): [1, 1, 1, 1, 1, 1, 1]

for name, counts in runs.items():
    plt.plot(range(1, 8), counts, "o-", label=name)
plt.xlabel("call (a new batch size each)")
plt.ylabel("graphs compiled so far")
plt.legend()
plt.show()
