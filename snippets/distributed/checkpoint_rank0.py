# launch: torchrun --nproc-per-node 2
import os
import shutil
import tempfile

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


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
    return nn.Linear(4, 1).to(device)


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
ddp_model = DDP(make_model())
optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.1, momentum=0.9)
data = torch.Generator().manual_seed(rank)
x = torch.randn(8, 4, generator=data).to(device)  # x: [B, 4]
y = torch.randn(8, 1, generator=data).to(device)  # y: [B, 1]
nn.functional.mse_loss(ddp_model(x), y).backward()
optimizer.step()

# Every rank needs the same path; rank 0 makes the directory.
holder = [tempfile.mkdtemp() if rank == 0 else None]
dist.broadcast_object_list(holder, src=0)
path = os.path.join(holder[0], "checkpoint.pt")
if rank == 0:  # one writer: the replicas are identical anyway
    state = {
        "model": ddp_model.module.state_dict(),
        "optimizer": optimizer.state_dict(),
    }
    torch.save(state, path)
dist.barrier()  # nobody reads before rank 0 has finished writing

# Onto this rank's device:
loaded = torch.load(path, map_location=device, weights_only=True)
restored = make_model()
restored.load_state_dict(loaded["model"])
pairs = zip(restored.parameters(), ddp_model.parameters(), strict=True)
same = all(torch.equal(p, q) for p, q in pairs)
facts = gather((same, str(loaded["model"]["weight"].device)))
if rank == 0:
    print("keys of ddp_model.state_dict():", sorted(ddp_model.state_dict()))
    #> keys of ddp_model.state_dict(): ['module.bias', 'module.weight']
    print("keys saved from ddp_model.module:", sorted(loaded["model"]))
    #> keys saved from ddp_model.module: ['bias', 'weight']
    for r, (same, where) in enumerate(facts):
        print(f"rank {r}: loaded onto {where}, same weights {same}")
        #> rank 0: loaded onto cpu, same weights True
        #> rank 1: loaded onto cpu, same weights True

dist.barrier()  # every rank has read the file before rank 0 deletes it
if rank == 0:
    shutil.rmtree(holder[0])
# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
# restored is a fresh copy for the check; it never ran backward.
# expect-no-grad: restored.*
