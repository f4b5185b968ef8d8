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
model = nn.Linear(4, 1).to(device)
ddp_model = DDP(model)
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
data = torch.Generator().manual_seed(rank)
# stays-on-cpu: x, y
x = torch.randn(2, 8, 4, generator=data)  # x: [S, B, 4]
y = torch.randn(2, 8, 1, generator=data)  # y: [S, B, 1]

# Rank 1's first batch holds a NaN, as a corrupt sample would:
if rank == 1:
    x[0, 3, 0] = float("nan")

for step in range(2):
    xb, yb = x[step].to(device), y[step].to(device)
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(ddp_model(xb), yb)  # loss: []
    finite = torch.isfinite(loss)  # this rank's verdict
    all_finite = finite.float()  # every rank's verdict: their minimum
    dist.all_reduce(all_finite, op=dist.ReduceOp.MIN)
    if all_finite.item() == 1:  # the same decision on every rank
        loss.backward()
        optimizer.step()
    verdicts = gather(finite.item())
    if rank == 0:
        done = "stepped" if all_finite.item() == 1 else "skipped everywhere"
        print(f"step {step}: finite loss per rank {verdicts} -> {done}")
        #> step 0: finite loss per rank [True, False] -> skipped everywhere
        #> step 1: finite loss per rank [True, True] -> stepped

same = same_on_every_rank(ddp_model.parameters())
if rank == 0:
    print("same weights on every rank:", same)
    #> same weights on every rank: True

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
