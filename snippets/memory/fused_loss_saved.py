# requires: torch>=2.13
import torch
from torch import nn
from torch.nn import LinearCrossEntropyOptions
from torch.nn import functional as F

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

head = nn.Linear(32, 1000, bias=False).to(device)  # 1,000 classes
h = torch.randn(64, 32).to(device).requires_grad_()  # h: [N, 32]
y = torch.randint(1000, (64,)).to(device)  # y: [N]
# The same head inside the loss module, with chunking switched on:
chunked = LinearCrossEntropyOptions(batch_chunk_size=16)
fused = nn.LinearCrossEntropyLoss(32, 1000, options=chunked).to(device)
fused.linear.load_state_dict(head.state_dict())
weights = [*head.parameters(), *fused.parameters()]
params = {p.untyped_storage().data_ptr() for p in weights}


def saved_bytes(loss_fn):
    """Activation bytes the saved-tensor hooks see, each storage once."""
    counted = {}

    def pack(saved):
        storage = saved.untyped_storage()
        if storage.data_ptr() not in params:
            counted[storage.data_ptr()] = storage.nbytes()
        return saved

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda s: s):
        loss = loss_fn()
    loss.backward()
    return sum(counted.values())


W = head.weight


def per_token():  # chunked, reduction="none": one loss per token
    return F.linear_cross_entropy(
        h, W, y, options=chunked, reduction="none"
    )


print(f"{saved_bytes(lambda: F.cross_entropy(head(h), y)):,}")
#> 264,708
print(f"{saved_bytes(lambda: F.linear_cross_entropy(h, W, y)):,}")
#> 264,708
print(f"{saved_bytes(lambda: fused(h, y)):,}")
#> 0
print(f"{saved_bytes(lambda: per_token().sum()):,}")
#> 8,704
print(f"logits: {64 * 1000 * 4:,}, input: {64 * 32 * 4:,}")
#> logits: 256,000, input: 8,192
