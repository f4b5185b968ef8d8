# launch: torchrun --nproc-per-node 2
import copy
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import fully_shard

accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
if device.type != "cpu":  # one accelerator per process, picked by LOCAL_RANK
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


model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)).to(device)
reference = copy.deepcopy(model)  # not sharded: trained on the global batch, for the checks
fully_shard(model[0])  # each layer is one unit: gathered for its forward, then freed
fully_shard(model[2])
fully_shard(model)  # the root: whatever is left (nothing here) and the hooks of the step

w = model[0].weight
shards = gather([(name, tuple(p.to_local().shape)) for name, p in model.named_parameters()])
if rank == 0:
    print("0.weight:", type(w).__name__, w.placements, "global shape", tuple(w.shape))
    #> 0.weight: DTensor (Shard(dim=0),) global shape (8, 4)
    for r, rank_shards in enumerate(shards):
        print(f"rank {r} holds", ", ".join(f"{name} {shape}" for name, shape in rank_shards))
        #> rank 0 holds 0.weight (4, 4), 0.bias (4,), 2.weight (2, 8), 2.bias (2,)
        #> rank 1 holds 0.weight (4, 4), 0.bias (4,), 2.weight (1, 8), 2.bias (1,)

# The training step is the one you know. Build the optimizer AFTER fully_shard:
# it must hold the sharded parameters.
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss_fn = nn.MSELoss()
data = torch.Generator().manual_seed(rank)
x = torch.randn(8, 4, generator=data).to(device)  # x: [B, 4]
y = torch.randn(8, 3, generator=data).to(device)  # y: [B, 3]
optimizer.zero_grad()
loss = loss_fn(model(x), y)  # loss: []
loss.backward()  # each rank keeps only its shard of the averaged gradient
local_norm = torch.linalg.vector_norm(
    torch.stack([torch.linalg.vector_norm(p.grad.to_local()) for p in model.parameters()])
)  # what a hand-written norm over this rank's tensors sees: a part
total_norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.1)  # every rank calls it
optimizer.step()

# The reference: the global batch in one unsharded model, clipped and stepped the same way.
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
facts = gather((round(local_norm.item(), 3), type(total_norm).__name__, same_norm, same_weights))
if rank == 0:
    print("global gradient norm:", round(ref_norm.item(), 3))
    #> global gradient norm: 0.324
    for r, (local, kind, norm_ok, weights_ok) in enumerate(facts):
        clipped = f"clip -> {kind} = global norm {norm_ok}"
        print(f"rank {r}: shard norm {local}, {clipped}, weights = unsharded {weights_ok}")
        #> rank 0: shard norm 0.273, clip -> DTensor = global norm True, weights = unsharded True
        #> rank 1: shard norm 0.174, clip -> DTensor = global norm True, weights = unsharded True

dist.destroy_process_group()
