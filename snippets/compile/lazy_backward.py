import torch
from functorch.compile import make_boxed_func
from torch import nn
from torch._dynamo.backends.common import aot_autograd

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

torch._dynamo.reset()  # fresh caches, as in a new process
events = []


def compiler(name):  # (1)!
    def compile_graph(gm, example_inputs):
        events.append(f"{name} compiled")
        return make_boxed_func(gm.forward)

    return compile_graph


backend = aot_autograd(
    fw_compiler=compiler("forward"), bw_compiler=compiler("backward")
)
x = torch.randn(16, 8).to(device)  # x: [B, 8]
y = torch.randint(0, 4, (16,)).to(device)  # y: [B]
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
compiled = torch.compile(model.to(device), backend=backend)
for step in range(2):
    loss = nn.functional.cross_entropy(compiled(x), y)  # loss: []
    events.append(f"forward {step} ran")
    loss.backward()  # (2)!
    events.append(f"backward {step} ran")
print(", ".join(events[:4]))
#> forward compiled, forward 0 ran, backward compiled, backward 0 ran
print(", ".join(events[4:]))
#> forward 1 ran, backward 1 ran
