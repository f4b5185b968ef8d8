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
# 11 samples do not split evenly over 2 ranks.
uneven = TensorDataset(torch.arange(11))
# drop_last=False (the default) pads:
padded = DistributedSampler(uneven, shuffle=False)
dropped = DistributedSampler(uneven, shuffle=False, drop_last=True)
padded_per_rank = gather(list(padded))
dropped_per_rank = gather(list(dropped))
if rank == 0:
    print("11 samples, drop_last=False (padded):")
    #> 11 samples, drop_last=False (padded):
    for r, indices in enumerate(padded_per_rank):
        print(f"rank {r}: {indices}")
        #> rank 0: [0, 2, 4, 6, 8, 10]
        #> rank 1: [1, 3, 5, 7, 9, 0]
    print("11 samples, drop_last=True:")
    #> 11 samples, drop_last=True:
    for r, indices in enumerate(dropped_per_rank):
        print(f"rank {r}: {indices}")
        #> rank 0: [0, 2, 4, 6, 8]
        #> rank 1: [1, 3, 5, 7, 9]

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
