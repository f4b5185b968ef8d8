# launch: torchrun --nproc-per-node 2
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


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
model = model.to(device)
# Each layer is one unit: gathered for its forward, then freed.
fully_shard(model[0])
fully_shard(model[2])
# The root: whatever is left (nothing here), and the step's hooks.
fully_shard(model)

w = model[0].weight
names = [name for name, _ in model.named_parameters()]
shards = gather([tuple(p.to_local().shape) for p in model.parameters()])
if rank == 0:
    print("model:", type(model).__name__)
    #> model: FSDPSequential
    print("0.weight:", type(w).__name__, w.placements, tuple(w.shape))
    #> 0.weight: DTensor (Shard(dim=0),) (8, 4)
    print("parameters:", names)
    #> parameters: ['0.weight', '0.bias', '2.weight', '2.bias']
    for r, shapes in enumerate(shards):
        print(f"rank {r} holds", shapes)
        #> rank 0 holds [(4, 4), (4,), (2, 8), (2,)]
        #> rank 1 holds [(4, 4), (4,), (1, 8), (1,)]

# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
