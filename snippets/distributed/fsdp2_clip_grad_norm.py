# launch: torchrun --nproc-per-node 2
import copy
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import fully_shard


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


def shard(model):
    fully_shard(model[0])
    fully_shard(model[2])
    fully_shard(model)
    return model


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
model = model.to(device)
loss_fn = nn.MSELoss()
data = torch.Generator().manual_seed(rank)
x = torch.randn(8, 4, generator=data).to(device)  # x: [B, 4]
y = torch.randn(8, 3, generator=data).to(device)  # y: [B, 3]
reference = copy.deepcopy(model)  # not sharded: sees the global batch
shard(model)
loss_fn(model(x), y).backward()
x_all = torch.cat(gather(x.cpu())).to(device)  # x_all: [N, 4]
y_all = torch.cat(gather(y.cpu())).to(device)  # y_all: [N, 3]
loss_fn(reference(x_all), y_all).backward()

# What a hand-written norm over this rank's tensors sees: a part.
pieces = [p.grad.to_local().flatten() for p in model.parameters()]
local_norm = torch.linalg.vector_norm(torch.cat(pieces))
# A collective: every rank calls it.
total_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.1)
ref_norm = nn.utils.clip_grad_norm_(reference.parameters(), max_norm=0.1)
full_norm = total_norm.full_tensor()
same_norm = torch.allclose(full_norm, ref_norm, atol=1e-6)
facts = gather((round(local_norm.item(), 3), same_norm))
if rank == 0:
    print("the gradient's norm:", round(ref_norm.item(), 3))
    #> the gradient's norm: 0.324
    print("clip_grad_norm_ returns a", type(total_norm).__name__)
    #> clip_grad_norm_ returns a DTensor
    for r, (local, same) in enumerate(facts):
        line = f"its shards' norm {local}, clip_grad_norm_'s global {same}"
        print(f"rank {r}: {line}")
        #> rank 0: its shards' norm 0.273, clip_grad_norm_'s global True
        #> rank 1: its shards' norm 0.174, clip_grad_norm_'s global True

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
