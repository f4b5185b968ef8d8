# launch: torchrun --nproc-per-node 2
import copy
import os

import torch
import torch.distributed as dist
from torch import nn
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


model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
model = model.to(device)
# Not sharded: trained on the global batch, for the checks.
reference = copy.deepcopy(model)
# Each layer is one unit: gathered for its forward, then freed.
fully_shard(model[0])
fully_shard(model[2])
# The root: whatever is left (nothing here), and the step's hooks.
fully_shard(model)

w = model[0].weight
names = [name for name, _ in model.named_parameters()]
shards = gather([tuple(p.to_local().shape) for p in model.parameters()])
if rank == 0:
    kind = type(w).__name__
    print("0.weight:", kind, w.placements, "global shape", tuple(w.shape))
    #> 0.weight: DTensor (Shard(dim=0),) global shape (8, 4)
    print("parameters:", names)
    #> parameters: ['0.weight', '0.bias', '2.weight', '2.bias']
    for r, shapes in enumerate(shards):
        print(f"rank {r} holds", shapes)
        #> rank 0 holds [(4, 4), (4,), (2, 8), (2,)]
        #> rank 1 holds [(4, 4), (4,), (1, 8), (1,)]

# The training step is the one you know. Build the optimizer AFTER
# fully_shard: it must hold the sharded parameters.
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.MSELoss()
data = torch.Generator().manual_seed(rank)
x = torch.randn(8, 4, generator=data).to(device)  # x: [B, 4]
y = torch.randn(8, 3, generator=data).to(device)  # y: [B, 3]
optimizer.zero_grad()
loss = loss_fn(model(x), y)  # loss: []
loss.backward()  # each rank keeps only its shard of the averaged gradient
# What a hand-written norm over this rank's tensors sees: a part.
local_grads = [p.grad.to_local() for p in model.parameters()]
local_norm = torch.linalg.vector_norm(
    torch.stack([torch.linalg.vector_norm(g) for g in local_grads])
)
# A collective: every rank calls it.
total_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.1)
optimizer.step()

# The reference: the global batch in one unsharded model, clipped and
# stepped the same way.
x_all = torch.cat(gather(x.cpu())).to(device)  # x_all: [N, 4]
y_all = torch.cat(gather(y.cpu())).to(device)  # y_all: [N, 3]
ref_optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
loss_fn(reference(x_all), y_all).backward()
ref_norm = nn.utils.clip_grad_norm_(reference.parameters(), max_norm=0.1)
ref_optimizer.step()
same_norm = torch.allclose(total_norm.full_tensor(), ref_norm, atol=1e-6)
same_weights = all(
    torch.allclose(p.full_tensor(), q, atol=1e-6)
    for p, q in zip(model.parameters(), reference.parameters(), strict=True)
)
local = round(local_norm.item(), 3)
facts = gather((local, type(total_norm).__name__, same_norm, same_weights))
if rank == 0:
    print("global gradient norm:", round(ref_norm.item(), 3))
    #> global gradient norm: 0.324
    for r, (local, kind, norm_ok, _) in enumerate(facts):
        clipped = f"clip -> {kind} = global norm {norm_ok}"
        print(f"rank {r}: shard norm {local}, {clipped}")
        #> rank 0: shard norm 0.273, clip -> DTensor = global norm True
        #> rank 1: shard norm 0.174, clip -> DTensor = global norm True
    same = all(weights_ok for *_, weights_ok in facts)
    print("weights = unsharded weights on every rank:", same)
    #> weights = unsharded weights on every rank: True

dist.destroy_process_group()
