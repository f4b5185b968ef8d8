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
loss_fn = nn.MSELoss()
data = torch.Generator().manual_seed(rank)
x = torch.randn(8, 4, generator=data).to(device)  # x: [B, 4]
y = torch.randn(8, 3, generator=data).to(device)  # y: [B, 3]

reference = copy.deepcopy(model)  # not sharded: sees the global batch
shard(model)
# Build the optimizer AFTER sharding: it must hold the sharded parameters.
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
optimizer.zero_grad()
loss = loss_fn(model(x), y)  # loss: []
loss.backward()  # each rank keeps its shard of the averaged gradient
optimizer.step()  # and updates its shard of the weights

# The reference: one unsharded model, the global batch, the same step.
x_all = torch.cat(gather(x.cpu())).to(device)  # x_all: [N, 4]
y_all = torch.cat(gather(y.cpu())).to(device)  # y_all: [N, 3]
ref_optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
loss_fn(reference(x_all), y_all).backward()
ref_optimizer.step()
full = [p.full_tensor() for p in model.parameters()]  # every rank calls
pairs = list(zip(full, reference.parameters(), strict=True))
close = all(torch.allclose(p, q, atol=1e-6) for p, q in pairs)
if rank == 0:
    print("weights within 1e-6 of the unsharded model's:", close)
    #> weights within 1e-6 of the unsharded model's: True

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
