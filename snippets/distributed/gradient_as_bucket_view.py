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


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
model = model.to(device)
data = torch.Generator().manual_seed(rank)
x = torch.randn(8, 4, generator=data).to(device)  # x: [B, 4]

grads = {}
for as_view in (False, True):
    ddp_model = DDP(copy.deepcopy(model), gradient_as_bucket_view=as_view)
    ddp_model(x).pow(2).mean().backward()
    grads[as_view] = [p.grad for p in ddp_model.parameters()]
    # Where each gradient's memory lives:
    storages = {g.untyped_storage().data_ptr() for g in grads[as_view]}
    where = f"storages behind 4 gradients: {len(storages)}"
    if rank == 0:
        print(f"gradient_as_bucket_view={as_view}: {where}")
        #> gradient_as_bucket_view=False: storages behind 4 gradients: 4
        #> gradient_as_bucket_view=True: storages behind 4 gradients: 1

pairs = zip(grads[False], grads[True], strict=True)
same = all(torch.equal(a, b) for a, b in pairs)
if rank == 0:
    print("the same gradients either way:", same)
    #> the same gradients either way: True

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
# model, the unwrapped original, only seeded the copies; no backward ran.
# expect-no-grad: model.*
