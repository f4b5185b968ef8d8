# launch: torchrun --nproc-per-node 2
import os
import shutil
import tempfile
import warnings

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch import nn
from torch.distributed.checkpoint.state_dict import (
    get_state_dict,
    set_state_dict,
)
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import DTensor

# torch 2.10's dcp.save warns "TypedStorage is deprecated" from its own
# code (2.11 and newer do not): nothing to act on, so silenced.
warnings.filterwarnings("ignore", "TypedStorage is deprecated")


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


def shared_tempdir():
    """A new folder, made by rank 0; every rank gets its name."""
    holder = [tempfile.mkdtemp() if rank == 0 else None]
    dist.broadcast_object_list(holder, src=0)
    return holder[0]


def shards(model, optimizer):
    """This rank's pieces of the weights and of the optimizer's state."""
    state = [model.state_dict(), optimizer.state_dict()["state"]]
    leaves = torch.utils._pytree.tree_leaves(state)
    tensors = [t for t in leaves if isinstance(t, torch.Tensor)]
    return [t.to_local() if isinstance(t, DTensor) else t
            for t in tensors]  # fmt: skip


def make_sharded():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    model = model.to(device)
    for layer in (model[0], model[2], model):
        fully_shard(layer)
    return model, torch.optim.AdamW(model.parameters(), lr=0.01)


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
model, optimizer = make_sharded()
data = torch.Generator().manual_seed(rank)
x = torch.randn(8, 4, generator=data).to(device)  # x: [B, 4]
y = torch.randn(8, 3, generator=data).to(device)  # y: [B, 3]
nn.functional.mse_loss(model(x), y).backward()
optimizer.step()
folder = shared_tempdir()

# Each rank passes its own shards; nothing is gathered.
model_state, optim_state = get_state_dict(model, optimizer)
state = {"model": model_state, "optimizer": optim_state}
dcp.save(state, checkpoint_id=folder)
if rank == 0:
    print(sorted(os.listdir(folder)))
    #> ['.metadata', '__0_0.distcp', '__1_0.distcp']
    print(list(optim_state["state"]["0.weight"]))
    #> ['step', 'exp_avg', 'exp_avg_sq']

# Loading fills a state dict of the new model's own shards, in place.
resumed, resumed_optimizer = make_sharded()
model_state, optim_state = get_state_dict(resumed, resumed_optimizer)
state = {"model": model_state, "optimizer": optim_state}
dcp.load(state, checkpoint_id=folder)
set_state_dict(
    resumed,
    resumed_optimizer,
    model_state_dict=model_state,
    optim_state_dict=optim_state,
)
saved = shards(model, optimizer)
loaded = shards(resumed, resumed_optimizer)
equal = gather(all(map(torch.equal, saved, loaded)))
if rank == 0:
    print("every shard equal, per rank:", equal)
    #> every shard equal, per rank: [True, True]

dist.barrier()  # every rank has read the folder before rank 0 deletes it
if rank == 0:
    shutil.rmtree(folder)
# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
# resumed is a model for the check; it never ran backward.
# expect-no-grad: resumed.*
