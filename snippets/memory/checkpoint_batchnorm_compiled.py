import contextlib
import textwrap

import torch
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(32, 8).to(device)  # x: [B, 8]


def fresh():
    """The block of checkpoint_batchnorm.py, a batch norm at its end."""
    torch.manual_seed(0)
    layers = [nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 16)]
    return nn.Sequential(*layers, nn.BatchNorm1d(16)).to(device)


@contextlib.contextmanager
def buffers_kept(module):
    saved = [b.clone() for b in module.buffers()]
    try:
        yield
    finally:
        for buffer, value in zip(module.buffers(), saved, strict=True):
            buffer.copy_(value)


def compiled_step(fix, backend):
    """One compiled step with a fix of checkpoint_batchnorm.py."""
    torch._dynamo.reset()
    model = fresh()

    def outside(x):  # fix 1: the batch norm after the checkpoint
        return model[3](checkpoint(model[:3], x, use_reentrant=False))

    def contexts():  # fix 2: the recomputation restores the buffers
        return contextlib.nullcontext(), buffers_kept(model)

    def kept(x):
        return checkpoint(
            model, x, use_reentrant=False, context_fn=contexts
        )

    run = outside if fix == "outside" else kept
    step = torch.compile(run, backend=backend)
    try:
        step(x).sum().backward()
    except RuntimeError as err:  # BackendCompilerFailed is one too
        return type(err).__name__, what_failed(err)
    return f"batches tracked: {model[3].num_batches_tracked.item()}", ""


def what_failed(err):
    """The line of the message that names the problem, without details."""
    lines = str(err).splitlines()
    line = next(s for s in lines if "context_fn" in s or "inplace" in s)
    return line.split(": [")[0]


messages = {}
for fix in ("outside", "context_fn"):
    for backend in ("eager", "aot_eager"):
        result, messages[backend] = compiled_step(fix, backend)
        print(f"{fix}, {backend}: {result}")
        #> outside, eager: batches tracked: 1
        #> outside, aot_eager: batches tracked: 1
        #> context_fn, eager: RuntimeError
        #> context_fn, aot_eager: BackendCompilerFailed
print(textwrap.fill(messages["eager"], 72))
'''
one of the variables needed for gradient computation has been modified
by an inplace operation
'''
print(textwrap.fill(messages["aot_eager"], 72))
'''
AssertionError: In torch.compile mode, `context_fn` arg passed to
`torch.utils.checkpoint` must generate a tuple of two
`TorchDispatchMode`s.
'''
# no-module-to-check: each step builds its own block inside compiled_step
