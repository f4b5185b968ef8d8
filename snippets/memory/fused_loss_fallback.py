# requires: torch>=2.13
import warnings

import torch
from torch.nn import LinearCrossEntropyOptions
from torch.nn import functional as F

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

h = torch.randn(64, 32).to(device).requires_grad_()  # h: [N, 32]
W = torch.randn(1000, 32).to(device).requires_grad_()  # W: [V, 32]
y = torch.randint(1000, (64,)).to(device)  # y: [N]
options = LinearCrossEntropyOptions(batch_chunk_size=16)


def fused(**kwargs):
    """Whether the call took the chunked path, and what it warned."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loss = F.linear_cross_entropy(h, W, y, options=options, **kwargs)
    chunked = "chunked" in type(loss.grad_fn).__name__
    return chunked, [str(w.message) for w in caught]


cases = {"as before": {}, "label_smoothing=0.1": {"label_smoothing": 0.1}}
for name, kwargs in cases.items():
    chunked, warned = fused(**kwargs)
    print(f"{name}: chunked {chunked}, {len(warned)} warning(s)")
    #> as before: chunked True, 0 warning(s)
    #> label_smoothing=0.1: chunked False, 1 warning(s)
print(warned[0].split(";")[0])
#> linear_cross_entropy: ``options`` ignored
