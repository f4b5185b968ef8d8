# launch: torchrun --nproc-per-node 2
import io
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
from torch.utils.data import (
    DataLoader,
    DistributedSampler,
    Subset,
    TensorDataset,
)

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


def rng_state():
    states = {"cpu": torch.get_rng_state()}
    if device.type != "cpu":
        module = torch.get_device_module(device)
        states[device.type] = module.get_rng_state()
    return states


def set_rng_state(states):
    torch.set_rng_state(states["cpu"])
    if device.type != "cpu":
        module = torch.get_device_module(device)
        module.set_rng_state(states[device.type])


def start():
    """What every run builds first, from the same seed."""
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(4, 16), nn.Dropout(0.5), nn.Linear(16, 1)
    )
    model = model.to(device)
    for layer in (model[0], model[2], model):
        fully_shard(layer)
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
    torch.manual_seed(1 + rank)  # each rank's own dropout masks
    return model, optimizer


def batches(epoch, done):
    """This rank's batches of `epoch`, after the first `done` of them."""
    sampler = DistributedSampler(data, shuffle=True, seed=0)
    sampler.set_epoch(epoch)
    mine = list(sampler)[done * 4 :]
    own = torch.Generator()  # leaves the global generator to dropout
    return DataLoader(Subset(data, mine), batch_size=4, generator=own)


def train(model, optimizer, epoch, done, steps):
    for x, y in list(batches(epoch, done))[:steps]:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()


def params(model):
    return [p.full_tensor() for p in model.parameters()]


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
folder = shared_tempdir()
data = TensorDataset(torch.randn(64, 4), torch.randn(64, 1))  # every rank's

# The reference: 6 steps of epoch 0 in one go.
model, optimizer = start()
train(model, optimizer, epoch=0, done=0, steps=6)
reference = params(model)

# Stopped after 3 steps, with a checkpoint of what the rest depends on.
model, optimizer = start()
train(model, optimizer, epoch=0, done=0, steps=3)
model_state, optim_state = get_state_dict(model, optimizer)
run = io.BytesIO()  # the rest of the run, one value to DCP
torch.save({"epoch": 0, "done": 3, "rng": gather(rng_state())}, run)
state = {"model": model_state, "optimizer": optim_state, "run": run}
dcp.save(state, checkpoint_id=folder)


def resume(leave_out=None):
    model, optimizer = start()
    model_state, optim_state = get_state_dict(model, optimizer)
    state = {"model": model_state, "optimizer": optim_state, "run": None}
    dcp.load(state, checkpoint_id=folder)
    set_state_dict(
        model,
        optimizer,
        model_state_dict=model_state,
        optim_state_dict=optim_state,
    )
    state["run"].seek(0)
    run = torch.load(state["run"], weights_only=True)
    rng = run["rng"][0 if leave_out == "each rank's rng" else rank]
    set_rng_state(rng)
    done = 0 if leave_out == "the data position" else run["done"]
    train(model, optimizer, run["epoch"], done, steps=3)
    pairs = zip(params(model), reference, strict=True)
    return all(torch.equal(p, r) for p, r in pairs)


for part in (None, "each rank's rng", "the data position"):
    equal = resume(leave_out=part)  # the same weights as the reference?
    if rank == 0:
        print(f"without {part}:" if part else "everything restored:", equal)
        #> everything restored: True
        #> without each rank's rng: False
        #> without the data position: False

dist.barrier()  # every rank has read the folder before rank 0 deletes it
if rank == 0:
    shutil.rmtree(folder)
# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
