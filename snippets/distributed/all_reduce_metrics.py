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


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
ddp_model = DDP(nn.Linear(4, 1).to(device))
data = torch.Generator().manual_seed(rank)
x = torch.randn(8, 4, generator=data).to(device)  # x: [B, 4]
y = torch.randn(8, 1, generator=data).to(device)  # y: [B, 1]
loss = nn.functional.mse_loss(ddp_model(x), y)  # loss: []
loss.backward()

# Each rank's loss is its own batch's; all-reduce it for the global mean.
logged = loss.detach().clone()
# Every rank calls it, every rank gets the sum:
dist.all_reduce(logged, op=dist.ReduceOp.SUM)
logged /= world_size
facts = gather((round(loss.item(), 3), round(logged.item(), 3)))
if rank == 0:
    for r, (own, mean) in enumerate(facts):
        print(f"rank {r}: own loss {own}, all-reduced mean {mean}")
        #> rank 0: own loss 1.658, all-reduced mean 2.71
        #> rank 1: own loss 3.762, all-reduced mean 2.71

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
