# launch: torchrun --nproc-per-node 2
import os

import matplotlib.pyplot as plt
import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks.default_hooks import (
    allreduce_hook,
)
from torch.nn.parallel import DistributedDataParallel as DDP


def init_distributed(device):
    """Join the process group torchrun describes; on an accelerator,
    take the one this process's LOCAL_RANK names."""
    if device.type != "cpu":
        device = torch.device(device.type, int(os.environ["LOCAL_RANK"]))
        torch.accelerator.set_device_index(device)
    backend = dist.get_default_backend_for_device(device)
    dist.init_process_group(backend=backend)
    return device


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank = dist.get_rank()
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
model = model.to(device)
# Each parameter's layer, by its name: "0.weight" is in model[0].
layer = {p: f"model[{name[0]}]" for name, p in model.named_parameters()}
# Buckets of at most about 100 bytes: one per layer, as a big model's are.
ddp_model = DDP(model, bucket_cap_mb=100 / 2**20)
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
data = torch.Generator().manual_seed(rank)
x = torch.randn(8, 4, generator=data).to(device)  # x: [B, 4]
y = torch.randn(8, 3, generator=data).to(device)  # y: [B, 3]
calls = []  # the all-reduces of the step recorded, in order


def noted_all_reduce(state, bucket):
    """DDP's own all-reduce of one bucket, noted as it starts."""
    first = model[0].weight.grad is not None  # computed yet?
    name = layer[bucket.parameters()[0]]
    calls.append((name, bucket.buffer().numel(), first))
    return allreduce_hook(state, bucket)


ddp_model.register_comm_hook(None, noted_all_reduce)
for _ in range(3):  # from the third step on, every step is alike
    calls.clear()
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(ddp_model(x), y)  # loss: []
    loss.backward()
    optimizer.step()

if rank == 0:
    for name, size, first in calls:
        print(f"all-reduce {name}: {size} values, model[0] done: {first}")
        #> all-reduce model[2]: 27 values, model[0] done: False
        #> all-reduce model[0]: 40 values, model[0] done: True
    names = [name for name, _, _ in calls]
    plt.bar(range(len(calls)), [size for _, size, _ in calls], color="C2")
    plt.xticks(range(len(calls)), names)
    plt.xlabel("buckets all-reduced during backward, in order")
    plt.ylabel("values in the bucket")
    plt.show()

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
