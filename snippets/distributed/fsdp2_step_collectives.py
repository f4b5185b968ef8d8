# launch: torchrun --nproc-per-node 2
import os

import matplotlib.pyplot as plt
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import fully_shard

# The collectives, by the names the profiler gives their calls.
KINDS = {
    "c10d::_allgather_base_": "all-gather",
    "c10d::_reduce_scatter_base_": "reduce-scatter",
}


def init_distributed(device):
    """Join the process group torchrun describes; on an accelerator,
    take the one this process's LOCAL_RANK names."""
    if device.type != "cpu":
        device = torch.device(device.type, int(os.environ["LOCAL_RANK"]))
        torch.accelerator.set_device_index(device)
    backend = dist.get_default_backend_for_device(device)
    dist.init_process_group(backend=backend)
    return device


def padded(p):
    """A parameter's size as FSDP2 moves it: split along its first
    dimension, padded to a multiple of the number of ranks."""
    n = dist.get_world_size()
    return -(-p.shape[0] // n) * n * (p.numel() // p.shape[0])


def draw(calls, layer):
    """One bar per collective, in order, coloured by kind."""
    for kind, colour in (("all-gather", "C0"), ("reduce-scatter", "C1")):
        at = [i for i, c in enumerate(calls) if c[1] == kind]
        plt.bar(at, [calls[i][2] for i in at], color=colour, label=kind)
    plt.xticks(range(len(calls)), [layer[c[2]][5:] for c in calls])
    forward = sum(c[0] == "forward" for c in calls)
    plt.axvline(forward - 0.5, color="black", ls="--", label="forward ends")
    plt.xlabel("model[i], each collective in order")
    plt.ylabel("values, both ranks' shards")
    plt.ylim(0, 1.6 * max(c[2] for c in calls))
    plt.legend(loc="upper left", ncol=2)
    plt.show()


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank = dist.get_rank()
data = torch.Generator().manual_seed(rank)
x = torch.randn(8, 4, generator=data).to(device)  # x: [B, 4]
y = torch.randn(8, 3, generator=data).to(device)  # y: [B, 3]
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
model = model.to(device)
for unit in (model[0], model[2], model):
    fully_shard(unit)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def step():
    """One training step, each phase named for the profiler."""
    optimizer.zero_grad()
    with torch.profiler.record_function("forward"):
        loss = nn.functional.mse_loss(model(x), y)  # loss: []
    with torch.profiler.record_function("backward"):
        loss.backward()
    with torch.profiler.record_function("step"):
        optimizer.step()


step()
step()  # from the third step on, every step is alike
cpu = [torch.profiler.ProfilerActivity.CPU]
# acc_events=True: one cycle all the same, and torch 2.10 warns without it
with torch.profiler.profile(
    activities=cpu, record_shapes=True, acc_events=True
) as prof:
    step()
events = sorted(prof.events(), key=lambda e: e.time_range.start)
phases = [e for e in events if e.name in ("forward", "backward", "step")]
calls = []  # (phase, kind, size of the whole tensor it assembles)
for e in (e for e in events if e.name in KINDS):
    start = e.time_range.start
    phase = [p.name for p in phases if p.time_range.start <= start][-1]
    size = max(shape[0] for shape in e.input_shapes if shape)
    calls.append((phase, KINDS[e.name], size))
sizes = {i: sum(padded(p) for p in model[i].parameters()) for i in (0, 2)}
layer = {size: f"model[{i}]" for i, size in sizes.items()}

if rank == 0:
    for phase, kind, size in calls:
        print(f"{phase:8} {kind:14} {layer[size]}: {size} values")
        #> forward  all-gather     model[0]: 40 values
        #> forward  all-gather     model[2]: 36 values
        #> backward all-gather     model[2]: 36 values
        #> backward all-gather     model[0]: 40 values
        #> backward reduce-scatter model[2]: 36 values
        #> backward reduce-scatter model[0]: 40 values
    draw(calls, layer)

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
