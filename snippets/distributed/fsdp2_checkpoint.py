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

accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
if device.type != "cpu":  # one accelerator per process, by LOCAL_RANK
    device = torch.device(device.type, int(os.environ["LOCAL_RANK"]))
    torch.accelerator.set_device_index(device)
dist.init_process_group(backend=dist.get_default_backend_for_device(device))
rank, world_size = dist.get_rank(), dist.get_world_size()
torch.manual_seed(0)


def gather(obj):
    """Every rank's `obj`, in rank order, on every rank."""
    objs = [None] * world_size
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


model = shard(make_model())
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
data = torch.Generator().manual_seed(rank)
x = torch.randn(8, 4, generator=data).to(device)  # x: [B, 4]
y = torch.randn(8, 3, generator=data).to(device)  # y: [B, 3]
loss = nn.functional.mse_loss(model(x), y)  # loss: []
loss.backward()
optimizer.step()  # now there is optimizer state (momentum) to save too

# A full state dict: every rank takes part in gathering the shards; with
# cpu_offload=True only rank 0 keeps the result, as plain CPU tensors.
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

holder = [tempfile.mkdtemp() if rank == 0 else None]
dist.broadcast_object_list(holder, src=0)
path = os.path.join(holder[0], "checkpoint.pt")
if rank == 0:
    torch.save({"model": model_state, "optimizer": optim_state}, path)
dist.barrier()

# 1. An ordinary, unsharded model loads the file like any other checkpoint.
loaded = torch.load(path, map_location=device, weights_only=True)
plain = make_model()
plain.load_state_dict(loaded["model"])
same_plain = all(
    torch.equal(p.full_tensor(), q)
    for p, q in zip(model.parameters(), plain.parameters(), strict=True)
)

# 2. Resuming sharded: only rank 0 needs the file; its tensors are sent to
# every rank, and each rank keeps its shard.
resumed = shard(make_model())
resumed_optimizer = torch.optim.SGD(
    resumed.parameters(), lr=0.1, momentum=0.9
)
from_rank0 = StateDictOptions(
    full_state_dict=True, broadcast_from_rank0=True
)
checkpoint = loaded if rank == 0 else {"model": {}, "optimizer": {}}
set_model_state_dict(resumed, checkpoint["model"], options=from_rank0)
set_optimizer_state_dict(
    resumed, resumed_optimizer, checkpoint["optimizer"], options=from_rank0
)
same_shards = all(
    torch.equal(p.to_local(), q.to_local())
    for p, q in zip(model.parameters(), resumed.parameters(), strict=True)
)
same_momentum = all(
    torch.equal(
        optimizer.state[p]["momentum_buffer"].to_local(),
        resumed_optimizer.state[q]["momentum_buffer"].to_local(),
    )
    for p, q in zip(model.parameters(), resumed.parameters(), strict=True)
)
facts = gather((same_plain, same_shards, same_momentum))
if rank == 0:
    print("matches the trained model:")
    #> matches the trained model:
    for r, (plain_ok, shards_ok, momentum_ok) in enumerate(facts):
        line = (
            f"rank {r}: unsharded copy {plain_ok}, "
            f"resumed shards {shards_ok}, momentum {momentum_ok}"
        )
        print(line)
        #> rank 0: unsharded copy True, resumed shards True, momentum True
        #> rank 1: unsharded copy True, resumed shards True, momentum True

dist.barrier()
if rank == 0:
    shutil.rmtree(holder[0])
dist.destroy_process_group()
# plain and resumed are copies for the checks; they never ran backward:
# expect-no-grad: plain.*, resumed.*
