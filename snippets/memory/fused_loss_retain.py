# requires: torch>=2.13
import torch
from torch.nn import LinearCrossEntropyOptions
from torch.nn import functional as F

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

h = torch.randn(64, 32).to(device).requires_grad_()  # h: [N, 32]
W = torch.randn(1000, 32).to(device).requires_grad_()  # W: [V, 32]
y = torch.randint(1000, (64,)).to(device)  # y: [N]


def second_backward(reduction, **kwargs):
    """What a second backward through the chunked loss does."""
    options = LinearCrossEntropyOptions(batch_chunk_size=16, **kwargs)
    loss = F.linear_cross_entropy(
        h, W, y, reduction=reduction, options=options
    ).sum()
    loss.backward(retain_graph=True)
    try:
        loss.backward()
    except RuntimeError as err:
        return str(err).split(";")[0]
    return "ran"


print("mean:", second_backward("mean"))
#> mean: linear_cross_entropy chunked backward called twice
allowed = second_backward("mean", allow_retain_graph=True)
print("mean, allow_retain_graph=True:", allowed)
#> mean, allow_retain_graph=True: ran
print("none:", second_backward("none"))
#> none: ran
# no-module-to-check: plain tensors; the example runs two backwards
