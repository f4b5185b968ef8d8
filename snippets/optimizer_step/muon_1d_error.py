import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

layer = nn.Linear(64, 256).to(device)

# All of a layer's parameters, as one would hand them to AdamW:
try:
    torch.optim.Muon(layer.parameters(), lr=0.02)
except ValueError as err:
    rule, found = str(err).split(" whereas ")  # the message, on two lines
    print(rule)
    #> Muon only supports 2D parameters
    print(found)
    #> we found a parameter with size: torch.Size([256])

# The check looks at the number of dimensions only: a 4-D convolution
# weight is refused too, and a 2-D embedding is accepted without a word.
conv, embed = nn.Conv2d(3, 8, 3), nn.Embedding(100, 16)
for module in (conv, embed):
    try:
        torch.optim.Muon([module.weight], lr=0.02)
        verdict = "accepted"
    except ValueError:
        verdict = "refused"
    print(type(module).__name__, tuple(module.weight.shape), verdict)
    #> Conv2d (8, 3, 3, 3) refused
    #> Embedding (100, 16) accepted
