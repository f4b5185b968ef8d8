# launch: torchrun --nproc-per-node 2
import os
import re
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


class Writer(dcp.FileSystemWriter):
    """DCP's file writer; with `fail`, rank 0 fails just before it writes
    .metadata, as a crash in the middle of a save would."""

    def __init__(self, path, fail=False):
        super().__init__(path)
        self.fail = fail

    def finish(self, metadata, results):
        if self.fail:
            raise OSError("disk full")
        return super().finish(metadata, results)


torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
device = init_distributed(device)
rank, world_size = dist.get_rank(), dist.get_world_size()
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
model = model.to(device)
fully_shard(model[0])
fully_shard(model[2])
fully_shard(model)
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
folder = shared_tempdir()


def complete(path):
    """DCP writes a checkpoint's .metadata last: without it, it is half."""
    return os.path.isfile(os.path.join(path, ".metadata"))


def newest_complete(folder):
    steps = [int(m[1]) for name in os.listdir(folder)
             if (m := re.fullmatch(r"step(\d+)", name))]  # fmt: skip
    done = [s for s in sorted(steps) if complete(f"{folder}/step{s}")]
    return f"step{done[-1]}" if done else None


def prune(folder, keep):
    """Keep the newest `keep` complete checkpoints, and no half one."""
    names = sorted(os.listdir(folder), key=lambda n: int(n[4:]))
    kept = [n for n in names if complete(f"{folder}/{n}")][-keep:]
    for name in names:
        if name not in kept:
            shutil.rmtree(f"{folder}/{name}")


for step in (1, 2, 3, 4):
    model_state, optim_state = get_state_dict(model, optimizer)
    state = {"model": model_state, "optimizer": optim_state}
    writer = Writer(f"{folder}/step{step}", fail=step == 4)
    try:
        dcp.save(state, storage_writer=writer)
    except dcp.api.CheckpointException as e:
        if rank == 0:
            failed = list(e.failures)
            print(f"step {step}: the save failed on rank {failed}")
            #> step 4: the save failed on rank [0]

if rank == 0:
    print("step3:", sorted(os.listdir(f"{folder}/step3")))
    #> step3: ['.metadata', '__0_0.distcp', '__1_0.distcp']
    print("step4:", sorted(os.listdir(f"{folder}/step4")))
    #> step4: ['__0_0.distcp', '__1_0.distcp']
    print("resume from:", newest_complete(folder))
    #> resume from: step3
    prune(folder, keep=2)
    print("after prune(keep=2):", sorted(os.listdir(folder)))
    #> after prune(keep=2): ['step2', 'step3']

dist.barrier()  # rank 0 has pruned before it deletes the folder
if rank == 0:
    shutil.rmtree(folder)
# Keep the barrier's handle (the chapter's "Shutting down" says why).
done = dist.barrier(async_op=True)
done.wait()
dist.destroy_process_group()
