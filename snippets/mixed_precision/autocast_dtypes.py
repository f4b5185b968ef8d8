import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(32, 20).to(device)  # x: [B, 20] float32
y = torch.randint(0, 10, (32,)).to(device)  # y: [B] int64
model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 10))
model = model.to(device)

with torch.autocast(device.type, dtype=torch.bfloat16):
    hidden = model[:2](x)  # hidden: [B, 64] bfloat16
    logits = model[2](hidden)  # logits: [B, 10] bfloat16
    loss = nn.functional.cross_entropy(logits, y)  # loss: [] float32
    # Mixed inputs: the result takes the widest dtype.
    both = torch.cat([hidden, x], dim=1)  # both: [B, 84] float32
print(hidden.dtype, logits.dtype, loss.dtype, both.dtype)
#> torch.bfloat16 torch.bfloat16 torch.float32 torch.float32
# Bytes per element, input vs activation:
print(x.element_size(), hidden.element_size())
#> 4 2

# The parameters are not converted: autocast casts a bfloat16 copy for each
# matmul.
print({p.dtype for p in model.parameters()})
#> {torch.float32}

# After the with block: backward follows the dtypes the forward recorded.
loss.backward()
print({p.grad.dtype for p in model.parameters()})
#> {torch.float32}

# Outside the block, the same layer computes in float32 again.
print(torch.is_autocast_enabled(device.type), model(x).dtype)
#> False torch.float32
