# launch: torchrun --nproc-per-node 2
import copy
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel as DDP

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


def flat_grad(model):
    return torch.cat([p.grad.reshape(-1) for p in model.parameters()])


def counting_allreduce(counter, bucket):  # (1)!
    counter["all-reduces"] += 1
    # The default: average over the ranks.
    return default_hooks.allreduce_hook(None, bucket)


model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
model = model.to(device)
# Not wrapped: one backward over the global batch.
full_model = copy.deepcopy(model)
loss_fn = nn.MSELoss()
k = 4  # micro-batches per optimizer step, on each rank
data = torch.Generator().manual_seed(rank)
micro_batches = [
    (torch.randn(8, 4, generator=data), torch.randn(8, 1, generator=data))
    for _ in range(k)
]
micro_batches = [(xb.to(device), yb.to(device)) for xb, yb in micro_batches]


def accumulate(ddp_model, style):
    counter = {"all-reduces": 0}
    ddp_model.register_comm_hook(counter, counting_allreduce)
    for i, (xb, yb) in enumerate(micro_batches):  # xb: [M, 4], yb: [M, 1]
        last = i == k - 1
        if style == "sync every time" or last:
            loss = loss_fn(ddp_model(xb), yb) / k  # loss: []
            loss.backward()
        elif style == "no_sync()":
            with ddp_model.no_sync():  # forward AND backward inside
                loss = loss_fn(ddp_model(xb), yb) / k
                loss.backward()
        else:  # "backward only in no_sync()"
            # The forward has already asked for a sync:
            loss = loss_fn(ddp_model(xb), yb) / k
            with ddp_model.no_sync():
                loss.backward()
    return counter["all-reduces"]


styles = ["sync every time", "no_sync()", "backward only in no_sync()"]
ddp_models = {style: DDP(copy.deepcopy(model)) for style in styles}
counts = {style: accumulate(ddp_models[style], style) for style in styles}

# The reference: the global batch (all ranks' micro-batches), one backward.
xs = gather([xb.cpu() for xb, _ in micro_batches])
ys = gather([yb.cpu() for _, yb in micro_batches])
x_all = torch.cat(sum(xs, [])).to(device)  # x_all: [N, 4]
y_all = torch.cat(sum(ys, [])).to(device)  # y_all: [N, 1]
loss_fn(full_model(x_all), y_all).backward()

reference = flat_grad(full_model)
same = {
    style: torch.allclose(flat_grad(m), reference, atol=1e-6)
    for style, m in ddp_models.items()
}
facts = gather(same)
if rank == 0:
    line = f"{world_size} ranks x {k} micro-batches of 8"
    print(f"global batch: {len(x_all)} samples, {line}")
    #> global batch: 64 samples, 2 ranks x 4 micro-batches of 8
    print(f"{'style':26} | all-reduces | global grad on every rank")
    #> style                      | all-reduces | global grad on every rank
    for style in styles:
        same_everywhere = all(rank_same[style] for rank_same in facts)
        print(f"{style:26} | {counts[style]:<11} | {same_everywhere}")
        #> sync every time            | 4           | True
        #> no_sync()                  | 1           | True
        #> backward only in no_sync() | 4           | True

dist.destroy_process_group()
# model, the unwrapped original, only seeded the copies; no backward ran:
# expect-no-grad: model.*
