# launch: torchrun --nproc-per-node 2
import os

import torch
import torch.distributed as dist
from torch.utils.data import DistributedSampler, TensorDataset


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


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
dataset = TensorDataset(torch.arange(10))


def check_shards(sampler):
    """Do the ranks' shards split the data set: disjoint and complete?"""
    joined = sum(gather(list(sampler)), [])
    disjoint = len(set(joined)) == len(joined)
    complete = sorted(joined) == list(range(len(dataset)))
    return f"disjoint {disjoint}, together all {len(dataset)}: {complete}"


same_seed = DistributedSampler(dataset, shuffle=True, seed=0)
# The mistake: a seed per rank. Each rank shuffles its own way.
own_seed = DistributedSampler(dataset, shuffle=True, seed=rank)
checks = [check_shards(same_seed), check_shards(own_seed)]
if rank == 0:
    print("seed=0 on every rank:", checks[0])
    #> seed=0 on every rank: disjoint True, together all 10: True
    print("seed=rank:           ", checks[1])
    #> seed=rank:            disjoint False, together all 10: False

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
