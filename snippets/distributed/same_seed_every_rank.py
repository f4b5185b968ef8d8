# launch: torchrun --nproc-per-node 2
import os

import torch
import torch.distributed as dist
from torch import nn


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


def same_on_every_rank(tensor):
    copies = gather(tensor.cpu())
    return all(torch.equal(copies[0], other) for other in copies)


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()

# Dropout as a forward pass in training mode draws it, and a random flip
# as data augmentation would draw it, on each rank:
dropout = nn.Dropout(p=0.5)
kept = dropout(torch.ones(64, device=device)) > 0  # kept: [64]
flip = torch.rand(64) < 0.5  # flip: [64]
same_mask, same_flip = same_on_every_rank(kept), same_on_every_rank(flip)
if rank == 0:
    print("same dropout mask on every rank:", same_mask)
    #> same dropout mask on every rank: True
    print("same flips on every rank:", same_flip)
    #> same flips on every rank: True

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
