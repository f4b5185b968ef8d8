# launch: torchrun --nproc-per-node 2
import copy
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import fully_shard


def init_distributed(device):
    """Join the process group torchrun describes; on an accelerator,
    take the one this process's LOCAL_RANK names."""
    if device.type != "cpu":
        device = torch.device(device.type, int(os.environ["LOCAL_RANK"]))
        torch.accelerator.set_device_index(device)
    backend = dist.get_default_backend_for_device(device)
    dist.init_process_group(backend=backend)
    return device


def gather(obj):
    """Every rank's `obj`, in rank order, for rank 0 to print."""
    objs = [None] * dist.get_world_size()
    dist.all_gather_object(objs, obj)
    return objs


def shard(model):
    fully_shard(model[0])
    fully_shard(model[2])
    fully_shard(model)
    return model


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
model = model.to(device)
reference = copy.deepcopy(model)  # not sharded: sees the global batch
shard(model)
loss_fn = nn.MSELoss()
k = 4  # micro-batches per optimizer step, on each rank
data = torch.Generator().manual_seed(rank)
micro_batches = [
    (torch.randn(8, 4, generator=data), torch.randn(8, 3, generator=data))
    for _ in range(k)
]
micro_batches = [(xb.to(device), yb.to(device)) for xb, yb in micro_batches]

grads = []  # what the sharded parameter holds after each micro-batch
for i, (xb, yb) in enumerate(micro_batches):  # xb: [M, 4], yb: [M, 3]
    model.set_requires_gradient_sync(i == k - 1)  # sync on the last only
    loss = loss_fn(model(xb), yb) / k  # loss: []
    loss.backward()
    grad = model[0].weight.grad
    grads.append("None" if grad is None else type(grad).__name__)

# The reference: the global batch (all ranks' micro-batches), one backward.
x_all = torch.cat([xb.cpu() for xb, _ in micro_batches])  # x_all: [N, 4]
y_all = torch.cat([yb.cpu() for _, yb in micro_batches])  # y_all: [N, 3]
x_all = torch.cat(gather(x_all)).to(device)
y_all = torch.cat(gather(y_all)).to(device)
loss_fn(reference(x_all), y_all).backward()
full = [p.grad.full_tensor() for p in model.parameters()]  # every rank
pairs = zip(full, reference.parameters(), strict=True)
close = all(torch.allclose(g, q.grad, atol=1e-6) for g, q in pairs)
if rank == 0:
    print("has no_sync():", hasattr(model, "no_sync"))
    #> has no_sync(): False
    print("0.weight.grad after each micro-batch:", " ".join(grads))
    #> 0.weight.grad after each micro-batch: None None None DTensor
    print("gradients within 1e-6 of the global batch's:", close)
    #> gradients within 1e-6 of the global batch's: True

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
