# launch: torchrun --nproc-per-node 2
import os
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


def make_sharded():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    model = model.to(device)
    for layer in (model[0], model[2], model):
        fully_shard(layer)
    return model, torch.optim.AdamW(model.parameters(), lr=0.01)


def train_step():
    optimizer.zero_grad()
    x = torch.randn(8, 4).to(device)  # x: [B, 4]
    model(x).square().mean().backward()
    optimizer.step()


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
model, optimizer = make_sharded()
folder = shared_tempdir()
train_step()
before = [p.to_local().clone() for p in model.parameters()]

# async_save copies the state to CPU memory, then writes it in a thread,
# whose collectives run in a gloo group of their own, beside training's.
saver = dist.new_group(backend="gloo")
model_state, optim_state = get_state_dict(model, optimizer)
state = {"model": model_state, "optimizer": optim_state}
where = f"{folder}/step1"
saving = dcp.async_save(state, checkpoint_id=where, process_group=saver)
for _ in range(3):
    train_step()  # the training goes on while the files are written
saving.result()  # wait: the next save must not start before this ends

# The checkpoint holds the weights of the moment of the call.
loaded, loaded_optimizer = make_sharded()
model_state, optim_state = get_state_dict(loaded, loaded_optimizer)
dcp.load({"model": model_state}, checkpoint_id=f"{folder}/step1")
saved = [p.to_local() for p in model_state.values()]
now = [p.to_local() for p in model.parameters()]
if rank == 0:
    print("saved == at the call:", all(map(torch.equal, saved, before)))
    #> saved == at the call: True
    print("model == at the call:", all(map(torch.equal, now, before)))
    #> model == at the call: False

dist.barrier()  # every rank has read the folder before rank 0 deletes it
if rank == 0:
    shutil.rmtree(folder)
# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
# loaded is a model for the check; it never ran backward.
# expect-no-grad: loaded.*
