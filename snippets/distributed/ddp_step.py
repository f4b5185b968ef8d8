# launch: torchrun --nproc-per-node 2
import copy
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


def flat(tensors):
    """All the tensors as one vector, to compare them in one go."""
    return torch.cat([t.detach().reshape(-1) for t in tensors])


def same_on_every_rank(tensor):
    copies = gather(tensor.cpu())
    return all(torch.equal(copies[0], other) for other in copies)


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
model = nn.Linear(4, 1).to(device)
loss_fn = nn.MSELoss()

# Each rank has its own 8 samples; together they are a global batch of 16.
data = torch.Generator().manual_seed(rank)
x = torch.randn(8, 4, generator=data).to(device)  # x: [B, 4]
y = torch.randn(8, 1, generator=data).to(device)  # y: [B, 1]

ddp_model = DDP(model)
local_model = copy.deepcopy(model)  # not wrapped: this rank's batch only
full_model = copy.deepcopy(model)  # not wrapped: the global batch

loss = loss_fn(ddp_model(x), y)  # loss: []
loss.backward()  # all-reduces (averages) the gradients across ranks
loss_fn(local_model(x), y).backward()
x_all = torch.cat(gather(x.cpu())).to(device)  # x_all: [N, 4]
y_all = torch.cat(gather(y.cpu())).to(device)  # y_all: [N, 1]
loss_fn(full_model(x_all), y_all).backward()

ddp_grad = flat(p.grad for p in ddp_model.parameters())
local_grad = flat(p.grad for p in local_model.parameters())
full_grad = flat(p.grad for p in full_model.parameters())
is_local = torch.allclose(ddp_grad, local_grad, atol=1e-6)
is_global = torch.allclose(ddp_grad, full_grad, atol=1e-6)
facts = gather((round(loss.item(), 3), is_local, is_global))
same_grad = same_on_every_rank(ddp_grad)
if rank == 0:
    for r, (r_loss, is_local, is_global) in enumerate(facts):
        line = f"grad == local {is_local}, == global {is_global}"
        print(f"rank {r}: loss {r_loss}, {line}")
        #> rank 0: loss 1.658, grad == local False, == global True
        #> rank 1: loss 3.762, grad == local False, == global True
    print("same gradient on every rank:", same_grad)
    #> same gradient on every rank: True

# The same update from the same gradient: the replicas stay identical.
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
optimizer.step()
same_stepped = same_on_every_rank(flat(ddp_model.parameters()))
if rank == 0:
    print("same parameters on every rank, after the step:", same_stepped)
    #> same parameters on every rank, after the step: True

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
