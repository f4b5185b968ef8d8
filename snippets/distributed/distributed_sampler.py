# launch: torchrun --nproc-per-node 2
import os

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
if device.type != "cpu":  # one accelerator per process, by LOCAL_RANK
    device = torch.device(device.type, int(os.environ["LOCAL_RANK"]))
    torch.accelerator.set_device_index(device)
dist.init_process_group(backend=dist.get_default_backend_for_device(device))
rank, world_size = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)


def gather(obj):
    """Every rank's `obj`, in rank order, on every rank."""
    objs = [None] * world_size
    dist.all_gather_object(objs, obj)
    return objs


def report(title, per_rank):
    """A title, then one line per rank, in rank order."""
    lines = [f"rank {r}: {value}" for r, value in enumerate(per_rank)]
    return "\n".join([title, *lines])


# stays-on-cpu: samples
# Sample i is the number i, so a batch shows which samples it holds.
samples = torch.arange(10)
dataset = TensorDataset(samples)
# The rank and the world size come from the process group.
sampler = DistributedSampler(dataset, shuffle=True, seed=0)
# sampler=, so no shuffle= here:
loader = DataLoader(dataset, batch_size=5, sampler=sampler)


def epoch_order():
    """The samples this rank's loader yields in one epoch, in order."""
    return torch.cat([xb for (xb,) in loader]).tolist()


orders = []
for epoch in range(2):  # forgot set_epoch
    orders.append(f"epoch {epoch} {epoch_order()}")
per_rank = gather(" | ".join(orders))
if rank == 0:
    print(report("without set_epoch:", per_rank))
    '''
    without set_epoch:
    rank 0: epoch 0 [4, 7, 3, 0, 6] | epoch 1 [4, 7, 3, 0, 6]
    rank 1: epoch 0 [1, 5, 9, 8, 2] | epoch 1 [1, 5, 9, 8, 2]
    '''

orders = []
for epoch in range(2):
    sampler.set_epoch(epoch)  # the shuffle is seeded with seed + epoch
    orders.append(f"epoch {epoch} {epoch_order()}")
per_rank = gather(" | ".join(orders))
if rank == 0:
    print(report("with set_epoch(epoch):", per_rank))
    '''
    with set_epoch(epoch):
    rank 0: epoch 0 [4, 7, 3, 0, 6] | epoch 1 [5, 1, 0, 9, 7]
    rank 1: epoch 0 [1, 5, 9, 8, 2] | epoch 1 [6, 2, 8, 3, 4]
    '''

mine = list(sampler)
everyone = gather(mine)
if rank == 0:
    joined = sum(everyone, [])
    disjoint = len(set(joined)) == len(joined)
    complete = sorted(joined) == list(range(10))
    print("disjoint:", disjoint, "| together all 10:", complete)
    #> disjoint: True | together all 10: True

# The mistake: a seed per rank. Each rank shuffles differently, so the
# shards overlap.
own_seed = DistributedSampler(dataset, shuffle=True, seed=rank)
everyone = gather(list(own_seed))
if rank == 0:
    joined = sum(everyone, [])
    disjoint = len(set(joined)) == len(joined)
    complete = sorted(joined) == list(range(10))
    print("seed=rank: disjoint:", disjoint, "| together all 10:", complete)
    #> seed=rank: disjoint: False | together all 10: False

# 11 samples do not split evenly over 2 ranks.
uneven = TensorDataset(torch.arange(11))
# drop_last=False (the default) pads:
padded = DistributedSampler(uneven, shuffle=False)
dropped = DistributedSampler(uneven, shuffle=False, drop_last=True)
padded_per_rank = gather(list(padded))
dropped_per_rank = gather(list(dropped))
if rank == 0:
    print(report("11 samples, drop_last=False (padded):", padded_per_rank))
    '''
    11 samples, drop_last=False (padded):
    rank 0: [0, 2, 4, 6, 8, 10]
    rank 1: [1, 3, 5, 7, 9, 0]
    '''
    print(report("11 samples, drop_last=True:", dropped_per_rank))
    '''
    11 samples, drop_last=True:
    rank 0: [0, 2, 4, 6, 8]
    rank 1: [1, 3, 5, 7, 9]
    '''

dist.destroy_process_group()
