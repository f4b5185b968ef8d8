# requires: torch>=2.13
import torch
from torch.multiprocessing.reductions import StorageWeakRef
from torch.nn import LinearCrossEntropyOptions
from torch.nn import functional as F
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

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


# A language model's last layer: 256 tokens, width 128, 32,768 classes.
tokens, width, vocab, chunk = 256, 128, 32768, 64
h = torch.randn(tokens, width).to(device).requires_grad_()
W = (torch.randn(vocab, width) / width**0.5).to(device).requires_grad_()
y = torch.randint(vocab, (tokens,)).to(device)
options = LinearCrossEntropyOptions(batch_chunk_size=chunk)
paths = {
    "Linear + CrossEntropyLoss": lambda: F.cross_entropy(h @ W.T, y),
    "fused": lambda: F.linear_cross_entropy(h, W, y, options=options),
}
MiB = 2**20
print(f"logits: {tokens * vocab * 4 / MiB:.0f} MiB")
#> logits: 32 MiB
peaks = []
for name, loss_fn in paths.items():
    h.grad = W.grad = None
    with TensorBytes() as count:
        loss = loss_fn()
        after_forward = count.now()
        loss.backward()
    peaks.append(count.peak)
    print(f"{name}: {after_forward / MiB:.0f} MiB after forward")
    #> Linear + CrossEntropyLoss: 32 MiB after forward
    #> fused: 16 MiB after forward
print(f"Linear + CrossEntropyLoss, peak: {peaks[0] / MiB:.0f} MiB")
#> Linear + CrossEntropyLoss, peak: 96 MiB
# The fused path is one operation: what it holds inside, one chunk's
# logits at a time, is added from the shapes.
inside = chunk * vocab * 4
print("fused, under half of it:", peaks[1] + inside < peaks[0] / 2)
#> fused, under half of it: True


def validation_forward():
    """Bytes the fused forward leaves alive, with no backward after it."""
    with TensorBytes() as count:
        loss = paths["fused"]()
        return f"{count.now() / MiB:.0f} MiB, graph: {loss.requires_grad}"


print("grad mode on:", validation_forward())
#> grad mode on: 16 MiB, graph: True
with torch.no_grad():
    print("no_grad:", validation_forward())
    #> no_grad: 0 MiB, graph: False
# no-module-to-check: plain tensors; the example counts their memory
