import copy

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(32, 8).to(device)  # x: [B, 8]
y = torch.randint(0, 4, (32,)).to(device)  # y: [B]
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
model = model.to(device)
twin = copy.deepcopy(model)  # the eager reference


@torch.compile(backend="aot_eager")  # (1)!
def compute_loss(x, y):
    return nn.functional.cross_entropy(model(x), y)


loss = compute_loss(x, y)  # loss: []
print(type(loss.grad_fn).__name__)  # (2)!
#> CompiledFunctionBackward
loss.backward()
nn.functional.cross_entropy(twin(x), y).backward()
pairs = zip(model.parameters(), twin.parameters(), strict=True)
print(all(torch.allclose(p.grad, q.grad, atol=1e-6) for p, q in pairs))
#> True


def loss_and_backward(x, y):
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    return loss.detach()


full = torch.compile(loss_and_backward, backend="aot_eager", fullgraph=True)
try:
    full(x, y)
except torch._dynamo.exc.Unsupported as err:
    print(str(err).splitlines()[0])  # (3)!
    #> Unsupported Tensor.backward() call
