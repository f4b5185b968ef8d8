# launch: torchrun --nproc-per-node 2
import os
import shutil
import tempfile

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.checkpoint.state_dict import (
    StateDictOptions,
    get_state_dict,
    set_model_state_dict,
    set_optimizer_state_dict,
)
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


def make_model():
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
    return model.to(device)


def shard(model):
    fully_shard(model[0])
    fully_shard(model[2])
    fully_shard(model)
    return model


def save_full_checkpoint(model, optimizer):
    """Rank 0 writes a full state dict, as in fsdp2_full_state_dict.py;
    every rank gets the file's path."""
    full = StateDictOptions(full_state_dict=True, cpu_offload=True)
    states = get_state_dict(model, optimizer, options=full)
    model_state, optim_state = states
    holder = [tempfile.mkdtemp() if rank == 0 else None]
    dist.broadcast_object_list(holder, src=0)
    path = os.path.join(holder[0], "checkpoint.pt")
    if rank == 0:
        torch.save({"model": model_state, "optimizer": optim_state}, path)
    dist.barrier()
    return path


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
model = shard(make_model())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
data = torch.Generator().manual_seed(rank)
x = torch.randn(8, 4, generator=data).to(device)  # x: [B, 4]
y = torch.randn(8, 3, generator=data).to(device)  # y: [B, 3]
nn.functional.mse_loss(model(x), y).backward()
optimizer.step()
path = save_full_checkpoint(model, optimizer)

# Resuming sharded: only rank 0 reads the file; its tensors are sent to
# every rank, and each rank keeps its shard.
resumed = shard(make_model())
resumed_optimizer = torch.optim.SGD(
    resumed.parameters(), lr=0.1, momentum=0.9
)
from_rank0 = StateDictOptions(
    full_state_dict=True, broadcast_from_rank0=True
)
if rank == 0:
    checkpoint = torch.load(path, map_location=device, weights_only=True)
else:
    checkpoint = {"model": {}, "optimizer": {}}
set_model_state_dict(resumed, checkpoint["model"], options=from_rank0)
set_optimizer_state_dict(
    resumed, resumed_optimizer, checkpoint["optimizer"], options=from_rank0
)

pairs = list(zip(model.parameters(), resumed.parameters(), strict=True))
same_shards = all(torch.equal(p.to_local(), q.to_local()) for p, q in pairs)
momentum = [
    (optimizer.state[p]["momentum_buffer"].to_local(),
     resumed_optimizer.state[q]["momentum_buffer"].to_local())
    for p, q in pairs
]
same_momentum = all(torch.equal(a, b) for a, b in momentum)
facts = gather((same_shards, same_momentum))
if rank == 0:
    for r, (shards_ok, momentum_ok) in enumerate(facts):
        line = f"shards {shards_ok}, momentum {momentum_ok}"
        print(f"rank {r}: resumed == trained: {line}")
        #> rank 0: resumed == trained: shards True, momentum True
        #> rank 1: resumed == trained: shards True, momentum True

dist.barrier()
if rank == 0:
    shutil.rmtree(os.path.dirname(path))
# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
# resumed is a copy for the check; it never ran backward.
# expect-no-grad: resumed.*
