"""The memory a list of losses keeps alive: `loss` vs `loss.item()`, on the CPU.

`python tools/bench_training_loop.py` prints one line; `loss_list_memory()` returns it.
Measures; asserts nothing.

Two numbers per case, because `tracemalloc` cannot see torch's allocations and
torch has no CPU allocator statistics:

* RSS growth, read from /proc/self/statm (Linux; `resource` elsewhere, which only
  gives the peak). Freed heap memory is handed back with glibc's `malloc_trim`
  before each reading where glibc is available, so the growth is what is still alive.
* The bytes of the saved tensors the kept graphs still hold, counted exactly by
  walking `grad_fn.next_functions` from each kept loss and reading every node's
  `_saved_*` attributes (parameters, alive anyway, are not counted).

Four cases, each over the same N steps of the same model:

* train, keep `loss`:        backward() ran, so each graph's saved activations were
                              freed; its nodes stay alive, linked to the list.
* train, keep `loss.item()`: nothing stays.
* eval, keep `loss`:         no backward() (validation outside inference_mode): each
                              graph keeps every activation it saved.
* eval, keep `loss.item()`:  the graph dies with the loss tensor at the next step.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
import sys

import torch
from torch import nn
from torch.nn import functional as F

STEPS = 40
BATCH = 128
MIB = 2**20


def _trim() -> None:
    """Return freed heap memory to the OS (glibc only), so RSS shows live memory."""
    gc.collect()
    name = ctypes.util.find_library("c")
    if sys.platform.startswith("linux") and name:
        libc = ctypes.CDLL(name)
        if hasattr(libc, "malloc_trim"):
            libc.malloc_trim(0)


def _rss() -> int:
    """Resident set size in bytes now (Linux), else the peak from `resource`."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def _graph_holdings(losses: list, skip: set[int]) -> tuple[int, int]:
    """(bytes of saved tensors still held, number of graph nodes) reachable from losses."""
    stack = [x.grad_fn for x in losses if isinstance(x, torch.Tensor) and x.grad_fn is not None]
    seen_nodes: set[int] = set()
    seen_storage: set[int] = set()
    held = 0
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        for name in dir(node):
            if not name.startswith("_saved_"):
                continue
            try:
                value = getattr(node, name)
            except RuntimeError:  # freed by backward()
                continue
            for item in value if isinstance(value, tuple | list) else (value,):
                if isinstance(item, torch.Tensor):
                    storage = item.untyped_storage()
                    ptr = storage.data_ptr()
                    if ptr not in skip and ptr not in seen_storage:
                        seen_storage.add(ptr)
                        held += storage.nbytes()
        stack.extend(fn for fn, _ in node.next_functions)
    return held, len(seen_nodes)


def _case(keep_tensor: bool, backward: bool) -> tuple[float, float, int]:
    """Run STEPS steps; return (RSS growth MiB, saved bytes held MiB, graph nodes alive)."""
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)
    )
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(BATCH, 256)
    y = torch.randint(0, 10, (BATCH,))
    for _ in range(3):  # warm up: optimizer state, grads, allocator
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    del loss
    if not backward:
        model.eval()
    _trim()
    before = _rss()
    kept: list = []
    for _ in range(STEPS):
        loss = F.cross_entropy(model(x), y)
        if backward:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        kept.append(loss if keep_tensor else loss.item())
    del loss
    _trim()
    grown = (_rss() - before) / MIB
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    held, nodes = _graph_holdings(kept, params)
    return grown, held / MIB, nodes


def loss_list_memory() -> str:
    """One line: memory kept alive by a list of `loss` vs `loss.item()` over STEPS steps."""
    t_rss, t_held, t_nodes = _case(keep_tensor=True, backward=True)
    ti_rss, _, _ = _case(keep_tensor=False, backward=True)
    e_rss, e_held, e_nodes = _case(keep_tensor=True, backward=False)
    ei_rss, _, _ = _case(keep_tensor=False, backward=False)
    return (
        f"loss list ({STEPS} steps, CPU, MLP 256-512-512-10, batch {BATCH}): "
        f"train (backward each step) keeping `loss` +{t_rss:.1f} MiB RSS, {t_nodes} graph nodes "
        f"alive, {t_held:.1f} MiB saved activations (freed by backward); "
        f"keeping `loss.item()` +{ti_rss:.1f} MiB | "
        f"eval without inference_mode keeping `loss` +{e_rss:.1f} MiB RSS, {e_nodes} nodes, "
        f"{e_held:.1f} MiB saved activations held ({e_held / STEPS:.2f} MiB/step); "
        f"keeping `loss.item()` +{ei_rss:.1f} MiB"
    )


if __name__ == "__main__":
    print(loss_list_memory())
