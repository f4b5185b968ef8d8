from collections import OrderedDict

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# A tiny language model: embedding, normalization, MLP, output layer.
model = nn.Sequential(
    OrderedDict(
        embed=nn.Embedding(100, 16),
        norm=nn.LayerNorm(16),
        fc=nn.Linear(16, 64),
        act=nn.GELU(),
        head=nn.Linear(64, 100),
    )
).to(device)

# The rule from nanoGPT's configure_optimizers(): tensors with 2 or more
# dims (matmul weights, embeddings) decay; biases and norm weights do not.
params = {n: p for n, p in model.named_parameters() if p.requires_grad}
decay = [p for p in params.values() if p.dim() >= 2]
no_decay = [p for p in params.values() if p.dim() < 2]
optimizer = torch.optim.AdamW(
    [
        {"params": decay, "weight_decay": 0.1},
        {"params": no_decay, "weight_decay": 0.0},
    ],
    lr=1e-3,
)

for group in optimizer.param_groups:
    tensors = len(group["params"])
    numbers = sum(p.numel() for p in group["params"])
    label = f"weight_decay {group['weight_decay']}"
    print(f"{label}: {tensors} tensors, {numbers:,} numbers")
    #> weight_decay 0.1: 3 tensors, 9,024 numbers
    #> weight_decay 0.0: 4 tensors, 196 numbers
print("not decayed:", [n for n, p in params.items() if p.dim() < 2])
#> not decayed: ['norm.weight', 'norm.bias', 'fc.bias', 'head.bias']
# Every parameter is in exactly one group:
print(len(decay) + len(no_decay) == len(list(model.parameters())))
#> True
