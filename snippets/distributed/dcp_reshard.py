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
    StateDictOptions,
    get_state_dict,
    set_state_dict,
)
from torch.distributed.fsdp import fully_shard

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


def shared_tempdir():
    """A new folder, made by rank 0; every rank gets its name."""
    holder = [tempfile.mkdtemp() if rank == 0 else None]
    dist.broadcast_object_list(holder, src=0)
    return holder[0]


def alone(call, *args, **kwargs):
    """A DCP call in one process (no_dist=True): no collectives. DCP
    warns that it assumes so; here that is the intent."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "torch.distributed is disabled")
        call(*args, **kwargs, no_dist=True)


def make(sharded):
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    model = model.to(device)
    if sharded:
        for layer in (model[0], model[2], model):
            fully_shard(layer)
    return model, torch.optim.AdamW(model.parameters(), lr=0.01)


def train_step(model, optimizer):
    data = torch.Generator().manual_seed(rank)
    x = torch.randn(8, 4, generator=data).to(device)  # x: [B, 4]
    y = torch.randn(8, 3, generator=data).to(device)  # y: [B, 3]
    nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()


def whole(model, optimizer):
    """Every tensor of the model and its optimizer state, gathered."""
    full = StateDictOptions(full_state_dict=True)
    states = get_state_dict(model, optimizer, options=full)
    leaves = torch.utils._pytree.tree_leaves(states)
    return [t for t in leaves if isinstance(t, torch.Tensor)]


def same(a, b):
    return all(torch.equal(x, y) for x, y in zip(a, b, strict=True))


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
folder = shared_tempdir()

# Saved by 2 ranks, each its own shards.
model, optimizer = make(sharded=True)
train_step(model, optimizer)
model_state, optim_state = get_state_dict(model, optimizer)
state = {"model": model_state, "optimizer": optim_state}
dcp.save(state, checkpoint_id=f"{folder}/by2")
saved = whole(model, optimizer)

# Loaded by 1: rank 0 alone, into an ordinary model.
if rank == 0:
    plain, plain_optimizer = make(sharded=False)
    model_state, optim_state = get_state_dict(plain, plain_optimizer)
    state = {"model": model_state, "optimizer": optim_state}
    alone(dcp.load, state, checkpoint_id=f"{folder}/by2")
    set_state_dict(
        plain,
        plain_optimizer,
        model_state_dict=model_state,
        optim_state_dict=optim_state,
    )
    print("2 -> 1, equal:", same(saved, whole(plain, plain_optimizer)))
    #> 2 -> 1, equal: True
    alone(dcp.save, state, checkpoint_id=f"{folder}/by1")
dist.barrier()  # rank 0's checkpoint is written before the others read

# Loaded by 2: each rank reads the pieces of its own shards.
model, optimizer = make(sharded=True)
model_state, optim_state = get_state_dict(model, optimizer)
state = {"model": model_state, "optimizer": optim_state}
dcp.load(state, checkpoint_id=f"{folder}/by1")
set_state_dict(
    model,
    optimizer,
    model_state_dict=model_state,
    optim_state_dict=optim_state,
)
equal = same(saved, whole(model, optimizer))
if rank == 0:
    print("1 -> 2, equal:", equal)
    #> 1 -> 2, equal: True

dist.barrier()  # every rank has read the folder before rank 0 deletes it
if rank == 0:
    shutil.rmtree(folder)
# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
# model and plain are loaded copies for the check; neither ran backward.
# expect-no-grad: model.*, plain.*
