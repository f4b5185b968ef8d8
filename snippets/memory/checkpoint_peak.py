import torch
from torch import nn
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


class TensorBytes(TorchDispatchMode):
    """Bytes of the tensors that operations create (each storage once, not
    a view of an operation's input), counted while they are alive."""

    def __init__(self):
        super().__init__()
        self.alive, self.peak = {}, 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        inputs = tree_leaves((args, kwargs))
        seen = {t.untyped_storage().data_ptr() for t in inputs
                if isinstance(t, torch.Tensor)}  # fmt: skip
        for t in tree_leaves(out):
            if isinstance(t, torch.Tensor):
                s = t.untyped_storage()
                if s.data_ptr() not in seen:
                    entry = (StorageWeakRef(s), s.nbytes())
                    self.alive[s.data_ptr()] = entry
        self.peak = max(self.peak, self.now())
        return out

    def now(self):
        alive = self.alive.items()
        self.alive = {k: v for k, v in alive if not v[0].expired()}
        return sum(nbytes for _, nbytes in self.alive.values())


def block():
    return nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 64))


model = nn.Sequential(*[block() for _ in range(8)]).to(device)
x = torch.randn(512, 64).to(device)  # x: [B, 64]


def forward(how):
    if how == "whole model":
        return checkpoint(model, x, use_reentrant=False)
    if how == "each block":
        h = x
        for b in model:
            h = checkpoint(b, h, use_reentrant=False)
        return h
    return model(x)


def peak(how):
    """The peak of one step's own tensors, its gradients included."""
    model.zero_grad(set_to_none=True)
    with TensorBytes() as count:
        forward(how).sum().backward()
    return count.peak


KiB = 2**10
for how in ("plain", "whole model", "each block"):
    print(f"{how}: {peak(how) / KiB:,.0f} KiB at the peak")
    #> plain: 6,080 KiB at the peak
    #> whole model: 6,080 KiB at the peak
    #> each block: 2,505 KiB at the peak
grads = sum(p.grad.nbytes for p in model.parameters())
print(f"gradients at the end: {grads / KiB:,.0f} KiB")
#> gradients at the end: 1,034 KiB
