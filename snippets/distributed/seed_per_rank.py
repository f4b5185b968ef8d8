# launch: torchrun --nproc-per-node 2
import os

import torch
import torch.distributed as dist
from torch import nn
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


def gather(obj):
    """Every rank's `obj`, in rank order, for rank 0 to print."""
    objs = [None] * dist.get_world_size()
    dist.all_gather_object(objs, obj)
    return objs


def same_on_every_rank(tensors):
    flat = torch.cat([t.detach().reshape(-1) for t in tensors]).cpu()
    return all(torch.equal(flat, other) for other in gather(flat))


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
base_seed = 1000
model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(p=0.5), nn.Linear(8, 1))
ddp_model = DDP(model.to(device))
torch.manual_seed(base_seed + rank)  # from here on, each rank its own draws
kept = ddp_model.module[1](torch.ones(64, device=device)) > 0  # kept: [64]
same_mask = same_on_every_rank([kept])
same_weights = same_on_every_rank(ddp_model.parameters())
if rank == 0:
    print("same dropout mask on every rank:", same_mask)
    #> same dropout mask on every rank: False
    print("same weights on every rank:", same_weights)
    #> same weights on every rank: True

# Seeded per rank before building: DDP still starts the copies equal.
other = nn.Linear(4, 1).to(device)  # built after the per-rank seed
before = same_on_every_rank(other.parameters())
ddp_other = DDP(other)  # copies rank 0's parameters to every rank
after = same_on_every_rank(ddp_other.parameters())
if rank == 0:
    print("built after seeding per rank, same weights:", before)
    #> built after seeding per rank, same weights: False
    print("after DDP(other), same weights:", after)
    #> after DDP(other), same weights: True

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
