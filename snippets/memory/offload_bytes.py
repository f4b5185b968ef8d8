import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Sequential(
    nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10)
).to(device)
x = torch.randn(32, 64).to(device)  # x: [B, 64]
y = torch.randint(0, 10, (32,)).to(device)  # y: [B]
params = {p.untyped_storage().data_ptr() for p in model.parameters()}
copied = {"activations": 0, "parameters": 0}  # one copy per pack call
distinct = {}  # activation storages


def pack(saved):  # (1)!
    ptr = saved.untyped_storage().data_ptr()
    kind = "parameters" if ptr in params else "activations"
    copied[kind] += saved.nbytes
    if kind == "activations":
        distinct[ptr] = saved.untyped_storage().nbytes()
    return saved


def grads(hooks):
    model.zero_grad()
    with hooks:
        logits = model(x)  # logits: [B, 10]
    F.cross_entropy(logits, y).backward()
    return [p.grad.clone() for p in model.parameters()]


counted = grads(torch.autograd.graph.saved_tensors_hooks(pack, lambda s: s))
for kind, nbytes in copied.items():
    print(f"save_on_cpu would copy {nbytes:>7,} bytes of {kind}")
    #> save_on_cpu would copy  73,728 bytes of activations
    #> save_on_cpu would copy  10,240 bytes of parameters
print(f"distinct activations: {sum(distinct.values()):,} bytes")
#> distinct activations: 40,960 bytes

pin = device.type == "cuda"  # (2)!
offloaded = grads(torch.autograd.graph.save_on_cpu(pin_memory=pin))
pairs = zip(counted, offloaded, strict=True)
print(all(torch.allclose(a, b, atol=1e-6) for a, b in pairs))
#> True
