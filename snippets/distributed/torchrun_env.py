# launch: torchrun --nproc-per-node 2
import os

import torch
import torch.distributed as dist


def init_distributed(device):  # (1)!
    """Join the process group torchrun describes; on an accelerator,
    take the one this process's LOCAL_RANK names."""
    if device.type != "cpu":
        device = torch.device(device.type, int(os.environ["LOCAL_RANK"]))
        torch.accelerator.set_device_index(device)
    backend = dist.get_default_backend_for_device(device)
    dist.init_process_group(backend=backend)  # (2)!
    return device


def gather(obj):  # (3)!
    """Every rank's `obj`, in rank order, for rank 0 to print."""
    objs = [None] * dist.get_world_size()
    dist.all_gather_object(objs, obj)
    return objs


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()

# What torchrun told this process, and what the process group knows:
names = ["RANK", "LOCAL_RANK", "WORLD_SIZE"]
told = " ".join(f"{name}={os.environ[name]}" for name in names)
facts = gather((told, str(device)))
if rank == 0:  # (4)!
    print(f"rank {rank} of {world_size} prints for everyone:")
    #> rank 0 of 2 prints for everyone:
    for r, (env, where) in enumerate(facts):
        print(f"rank {r}: {env}, device {where}")
        #> rank 0: RANK=0 LOCAL_RANK=0 WORLD_SIZE=2, device cpu
        #> rank 1: RANK=1 LOCAL_RANK=1 WORLD_SIZE=2, device cpu

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
