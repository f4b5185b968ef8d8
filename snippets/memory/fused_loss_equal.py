# requires: torch>=2.13
import torch
from torch.nn import LinearCrossEntropyOptions
from torch.nn import functional as F

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

h = torch.randn(256, 128).to(device)  # h: [N, 128]
W = (torch.randn(32768, 128) / 128**0.5).to(device)  # W: [V, 128]
y = torch.randint(32768, (256,)).to(device)  # y: [N]


def loss_and_grads(loss_fn):
    h_ = h.clone().requires_grad_()
    W_ = W.clone().requires_grad_()
    loss = loss_fn(h_, W_)
    loss.backward()
    return loss.detach(), h_.grad, W_.grad


reference = loss_and_grads(lambda h, W: F.cross_entropy(h @ W.T, y))
default = loss_and_grads(lambda h, W: F.linear_cross_entropy(h, W, y))
options = LinearCrossEntropyOptions(batch_chunk_size=64)
chunked = loss_and_grads(
    lambda h, W: F.linear_cross_entropy(h, W, y, options=options)
)
print(round(reference[0].item(), 2))
#> 10.87
print([torch.equal(a, b) for a, b in zip(reference, default, strict=True)])
#> [True, True, True]
close = [
    torch.allclose(a, b, rtol=1e-5, atol=1e-8)
    for a, b in zip(reference, chunked, strict=True)
]
print(close)
#> [True, True, True]
# no-module-to-check: plain tensors' gradients, compared by the example
