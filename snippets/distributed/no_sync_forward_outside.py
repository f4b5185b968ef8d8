# launch: torchrun --nproc-per-node 2
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
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


def counting_allreduce(counter, bucket):
    counter["all-reduces"] += 1
    return default_hooks.allreduce_hook(None, bucket)  # the average


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
ddp_model = DDP(model.to(device))
loss_fn = nn.MSELoss()
k = 4  # micro-batches per optimizer step, on each rank
data = torch.Generator().manual_seed(rank)
micro_batches = [
    (torch.randn(8, 4, generator=data), torch.randn(8, 1, generator=data))
    for _ in range(k)
]
micro_batches = [(xb.to(device), yb.to(device)) for xb, yb in micro_batches]
counter = {"all-reduces": 0}
ddp_model.register_comm_hook(counter, counting_allreduce)

for i, (xb, yb) in enumerate(micro_batches):  # xb: [M, 4], yb: [M, 1]
    loss = loss_fn(ddp_model(xb), yb) / k  # loss: []
    if i < k - 1:
        with ddp_model.no_sync():  # too late: forward asked for a sync
            loss.backward()
    else:
        loss.backward()

if rank == 0:
    line = f"{counter['all-reduces']} all-reduces for {k} micro-batches"
    print("forward outside no_sync():", line)
    #> forward outside no_sync(): 4 all-reduces for 4 micro-batches

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
