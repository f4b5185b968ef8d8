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
optimizer.step()  # now there is optimizer state (momentum) to save too

# Every rank takes part in gathering the shards; with cpu_offload=True
# only rank 0 keeps the result, as plain CPU tensors.
full = StateDictOptions(full_state_dict=True, cpu_offload=True)
model_state, optim_state = get_state_dict(model, optimizer, options=full)
entries = [
    f"{k}: {type(v).__name__} {tuple(v.shape)}, {v.device}"
    for k, v in model_state.items()
]
facts = gather(entries)
if rank == 0:
    for r, rank_entries in enumerate(facts):
        print(f"rank {r}: {len(rank_entries)} entries", *rank_entries[:1])
        #> rank 0: 4 entries 0.weight: Tensor (8, 4), cpu
        #> rank 1: 0 entries

# One file, written by rank 0, the same kind as without FSDP.
holder = [tempfile.mkdtemp() if rank == 0 else None]
dist.broadcast_object_list(holder, src=0)
path = os.path.join(holder[0], "checkpoint.pt")
if rank == 0:
    torch.save({"model": model_state, "optimizer": optim_state}, path)
dist.barrier()

# An ordinary, unsharded model loads it like any other checkpoint.
loaded = torch.load(path, map_location=device, weights_only=True)
plain = make_model()
plain.load_state_dict(loaded["model"])
full_weights = [p.full_tensor() for p in model.parameters()]  # every rank
pairs = zip(full_weights, plain.parameters(), strict=True)
same = gather(all(torch.equal(p, q) for p, q in pairs))
if rank == 0:
    print("unsharded copy == trained model, per rank:", same)
    #> unsharded copy == trained model, per rank: [True, True]

dist.barrier()  # every rank has read the file before rank 0 deletes it
if rank == 0:
    shutil.rmtree(holder[0])
# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
# plain is a copy for the check; it never ran backward.
# expect-no-grad: plain.*
