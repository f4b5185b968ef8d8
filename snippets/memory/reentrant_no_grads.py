import warnings

import torch
from torch import nn
from torch.nn import functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

body = nn.Sequential(nn.Linear(64, 256), nn.ReLU()).to(device)
head = nn.Linear(256, 10).to(device)
# the input is data: it does not require grad
x = torch.randn(32, 64).to(device)  # x: [B, 64]
y = torch.randint(0, 10, (32,)).to(device)  # y: [B]


def train_step(**checkpoint_args):
    """One backward; returns the warnings that checkpoint raised."""
    body.zero_grad()
    head.zero_grad()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        h = checkpoint(body, x, **checkpoint_args)  # h: [B, 256]
    F.cross_entropy(head(h), y).backward()
    return [str(w.message) for w in caught]


messages = train_step()  # use_reentrant not passed
print(len(messages))
#> 2
print(messages[0].split(": ")[1].split(". ")[0])  # (1)!
#> the use_reentrant parameter should be passed explicitly
print("will raise an exception" in messages[0])
#> True
print(messages[1])
#> None of the inputs have requires_grad=True. Gradients will be None
print(body[0].weight.grad is None, head.weight.grad is None)
#> True False

messages = train_step(use_reentrant=True)
print(messages)
#> ['None of the inputs have requires_grad=True. Gradients will be None']
print(body[0].weight.grad is None)
#> True

messages = train_step(use_reentrant=False)
print(messages, body[0].weight.grad is None)
#> [] False
