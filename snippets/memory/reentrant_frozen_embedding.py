import warnings

import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

tokens = torch.randint(0, 100, (8, 16)).to(device)  # tokens: [B, T]
targets = torch.randint(0, 100, (8, 16)).to(device)  # targets: [B, T]
embed = nn.Embedding(100, 32).to(device)
block = nn.Sequential(nn.Linear(32, 32), nn.GELU()).to(device)
head = nn.Linear(32, 100).to(device)
embed.requires_grad_(False)  # frozen, as under LoRA


def train_step(use_reentrant, input_grads=False):
    """One backward; returns the warnings that checkpoint raised."""
    block.zero_grad()
    head.zero_grad()
    h = embed(tokens)  # h: [B, T, 32]
    if input_grads:  # what enable_input_require_grads() does
        h.requires_grad_(True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        h = checkpoint(block, h, use_reentrant=use_reentrant)
    logits = head(h)  # logits: [B, T, 100]
    F.cross_entropy(logits.flatten(0, 1), targets.flatten()).backward()
    return [str(w.message) for w in caught]


print(train_step(use_reentrant=True))
#> ['None of the inputs have requires_grad=True. Gradients will be None']
print(block[0].weight.grad is None, head.weight.grad is None)
#> True False
print(train_step(use_reentrant=True, input_grads=True))
#> []
print(block[0].weight.grad is None)
#> False
print(train_step(use_reentrant=False), block[0].weight.grad is None)
#> [] False
