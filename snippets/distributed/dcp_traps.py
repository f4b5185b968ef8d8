# launch: torchrun --nproc-per-node 2
import argparse
import io
import os
import pickle
import re
import shutil
import tempfile
import warnings

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch import nn
from torch.distributed.checkpoint.state_dict import get_state_dict
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


def make():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    return model.to(device)


def shard(model):
    for layer in (model[0], model[2], model):
        fully_shard(layer)
    return model


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
folder = shared_tempdir()
args = argparse.Namespace(lr=0.01, batch_size=8)
state = {"model": shard(make()).state_dict(), "args": args}
dcp.save(state, checkpoint_id=folder)

# Trap 1: a state dict taken before fully_shard holds the old tensors.
model = make()
stale = {"model": model.state_dict()}
model = shard(model)
first = model[0].weight.full_tensor().clone()
dcp.load(stale, checkpoint_id=folder)  # fills the old tensors, no error
changed = not torch.equal(model[0].weight.full_tensor(), first)
if rank == 0:
    print("model changed by the load:", changed)
    #> model changed by the load: False

# Trap 2: DCP unpickles a value that is not a tensor (weights_only=False).
loaded = {"args": None}
dcp.load(loaded, checkpoint_id=folder)
if rank == 0:
    print("args:", type(loaded["args"]).__name__)
    #> args: Namespace
    # torch.load's default, weights_only=True, refuses such a value:
    file = io.BytesIO()
    torch.save({"args": args}, file)
    file.seek(0)
    try:
        torch.load(file)
    except pickle.UnpicklingError as e:
        print(re.search(r"Unsupported global: \S+ \S+", str(e))[0])
        #> Unsupported global: GLOBAL argparse.Namespace

# Trap 3: before any gradient exists, get_state_dict makes the optimizer's
# state by taking a step with a learning rate of 0.
model = shard(make())
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
get_state_dict(model, optimizer)
step = optimizer.state_dict()["state"][0]["step"]
if rank == 0:
    print("the optimizer's step count:", step.item())
    #> the optimizer's step count: 1.0

dist.barrier()  # every rank has read the folder before rank 0 deletes it
if rank == 0:
    shutil.rmtree(folder)
# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
