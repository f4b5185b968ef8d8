# launch: torchrun --nproc-per-node 2
import os
import shutil
import tempfile

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch import nn
from torch.distributed.checkpoint.state_dict import (
    StateDictOptions,
    get_state_dict,
)
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import DTensor
from torch.utils._pytree import tree_leaves


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


def storages(state):
    """The storages of a state's tensors (a shard's, for a DTensor),
    as {address: bytes}."""
    leaves = tree_leaves(state)
    tensors = [t for t in leaves if isinstance(t, torch.Tensor)]
    tensors = [t.to_local() if isinstance(t, DTensor) else t
               for t in tensors]  # fmt: skip
    return {t.untyped_storage().data_ptr(): t.nbytes for t in tensors}


def megabytes(state, own=()):
    """Megabytes of a state's tensors, leaving out the storages in `own`."""
    return sum(n for p, n in storages(state).items() if p not in own) / 1e6


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
model = nn.Sequential(*[nn.Linear(1000, 1000) for _ in range(10)])
model = model.to(device)  # 10.01 million parameters
for layer in [*model, model]:
    fully_shard(layer)
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
x = torch.randn(4, 1000).to(device)  # x: [B, 1000]
model(x).square().mean().backward()
optimizer.step()
folder = shared_tempdir()
training = [model.state_dict(), optimizer.state_dict()]
own = storages(training)

# The full state dict: rank 0 holds a copy of everything.
full = StateDictOptions(full_state_dict=True, cpu_offload=True)
states = get_state_dict(model, optimizer, options=full)
full_mb = gather(round(megabytes(states, own), 1))
if rank == 0:
    torch.save(states, os.path.join(folder, "full.pt"))
del states

# DCP: each rank passes its own shards; they are the training's tensors.
states = get_state_dict(model, optimizer)
dcp_mb = gather(round(megabytes(states, own), 1))
dcp.save({"state": states}, checkpoint_id=os.path.join(folder, "dcp"))
if rank == 0:
    shards = megabytes(training)
    print(f"each rank trains with {shards:.1f} MB of shards")
    #> each rank trains with 60.1 MB of shards
    print("full state dict, MB more per rank:", full_mb)
    #> full state dict, MB more per rank: [120.1, 0.0]
    print(f"rank 0's copy: {full_mb[0] / shards:.1f} times its shards")
    #> rank 0's copy: 2.0 times its shards
    print("DCP, MB more per rank:", dcp_mb)
    #> DCP, MB more per rank: [0.0, 0.0]

dist.barrier()  # both saves are done before rank 0 deletes the folder
if rank == 0:
    shutil.rmtree(folder)
# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
