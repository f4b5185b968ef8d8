from collections import OrderedDict

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

vocab, width, steps = 256, 64, 30
model = nn.Sequential(
    OrderedDict(
        embed=nn.Embedding(vocab, width),
        fc1=nn.Linear(width, 4 * width),
        act=nn.GELU(),
        fc2=nn.Linear(4 * width, width),
        norm=nn.LayerNorm(width),
        head=nn.Linear(width, vocab, bias=False),
    )
).to(device)
tokens = torch.randint(vocab, (8, 17)).to(device)
x, y = tokens[:, :-1], tokens[:, 1:]

# Muon gets the 2-D weights of the hidden layers. The embedding and the
# output head are 2-D too, but they go to AdamW with the rest.
hidden, rest = [], []
for name, p in model.named_parameters():
    is_hidden = p.ndim == 2 and not name.startswith(("embed.", "head."))
    (hidden if is_hidden else rest).append(p)
muon = torch.optim.Muon(hidden, lr=0.02, momentum=0.95)
adamw = torch.optim.AdamW(rest, lr=3e-3, weight_decay=0.01)
optimizers = [muon, adamw]
schedulers = [  # one each: a scheduler drives one optimizer's groups
    torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    for opt in optimizers
]
for opt in optimizers:
    params = opt.param_groups[0]["params"]
    numbers = sum(p.numel() for p in params)
    kind = type(opt).__name__
    print(f"{kind}: {len(params)} tensors, {numbers:,} numbers")
    #> Muon: 2 tensors, 32,768 numbers
    #> AdamW: 6 tensors, 33,216 numbers
owned = {id(p) for opt in optimizers for p in opt.param_groups[0]["params"]}
print(owned == {id(p) for p in model.parameters()})  # each one, once
#> True
# Muon's docstring example splits by shape alone: it would give Muon these.
by_shape = [name for name, p in model.named_parameters() if p.ndim == 2]
print(by_shape)
#> ['embed.weight', 'fc1.weight', 'fc2.weight', 'head.weight']

losses = []
for step in range(steps):
    for opt in optimizers:
        opt.zero_grad()
    loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten())
    loss.backward()
    for opt in optimizers:  # step both, then both schedulers
        opt.step()
    for scheduler in schedulers:
        scheduler.step()
    losses.append(loss.item())
    if step + 1 == steps // 2:
        halfway = [s.get_last_lr()[0] for s in schedulers]
print("halfway, lr:", [round(lr, 6) for lr in halfway])
#> halfway, lr: [0.01, 0.0015]
print(round(losses[0], 1), losses[-1] < losses[0] / 2)
#> 5.7 True
