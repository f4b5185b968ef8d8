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


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
# stays-on-cpu: x_cpu, sync_bn
data = torch.Generator().manual_seed(rank)
x_cpu = torch.randn(8, 3, generator=data) + 1 + rank

# SyncBatchNorm would use the global statistics, but not on the CPU. It
# stays on the CPU here on every device, to show the error everywhere.
sync_bn = nn.SyncBatchNorm(3)
try:
    sync_bn(x_cpu)  # training mode, inside a process group
except ValueError as err:
    # The rest of the message varies between releases:
    message = str(err).split(" or ")[0]
messages = gather(message)
if rank == 0:
    print("ValueError on every rank:")
    #> ValueError on every rank:
    for r, m in enumerate(messages):
        print(f"rank {r}: {m}")
        #> rank 0: SyncBatchNorm expected input tensor to be on GPU
        #> rank 1: SyncBatchNorm expected input tensor to be on GPU

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
# sync_bn's forward raised, so its parameters never got a gradient.
# expect-no-grad: sync_bn.*
