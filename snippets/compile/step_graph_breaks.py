import torch
from torch import nn
from torch._dynamo.utils import counters

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(32, 8).to(device)  # x: [B, 8]
y = torch.randint(0, 4, (32,)).to(device)  # y: [B]
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
model = model.to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def train_step(x, y):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


explanation = torch._dynamo.explain(train_step)(x, y)  # (1)!
print("graphs:", explanation.graph_count)
#> graphs: 2
print("graph breaks:", explanation.graph_break_count)
#> graph breaks: 1
print(explanation.break_reasons[0].reason.splitlines()[0])
#> Unsupported Tensor.backward() call

counters.clear()  # (2)!
compiled_step = torch.compile(train_step, backend="eager")
compiled_step(x, y)
for reason in counters["graph_break"]:
    print(reason.splitlines()[0])
    #> Attempted to inline function marked as skipped
    #> Unsupported Tensor.backward() call
    #> Call to `torch._dynamo.graph_break()`
