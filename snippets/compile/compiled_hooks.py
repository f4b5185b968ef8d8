import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

torch._dynamo.reset()  # fresh caches, as in a new process
graphs = []


def recording(gm, example_inputs):  # (1)!
    calls = [n.target for n in gm.graph.nodes if n.op.startswith("call")]
    graphs.append([getattr(op, "__name__", op) for op in calls])
    return gm.forward


def clamp_output(module, args, output):  # a forward hook
    return output.clamp(min=0)


model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
model = model.to(device)
model.register_forward_hook(clamp_output)
model.compile(backend=recording)
out = model(torch.randn(3, 4).to(device))  # out: [3, 2]
print(any("clamp" in ops for ops in graphs))  # (2)!
#> True
