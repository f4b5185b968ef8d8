"""Train a small classifier: the whole training step in one script.

    python train.py                              # one process
    torchrun --nproc-per-node 2 train.py         # two processes, DDP
    torchrun --nproc-per-node 2 train.py --fsdp  # two processes, FSDP2
    python train.py --ckpt-every 20              # checkpoints/step20.pt ...
    python train.py --resume checkpoints/step20.pt

--nonfinite-at STEP makes the loss NaN at that step on the last rank, to
watch the guard skip the step on every rank and the run go on.
"""

import argparse
import contextlib
import json
import math
import os
import random

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.distributed.checkpoint.state_dict import (
    StateDictOptions,
    get_model_state_dict,
    get_optimizer_state_dict,
    set_model_state_dict,
    set_optimizer_state_dict,
)
from torch.distributed.fsdp import fully_shard
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.nn.utils import clip_grad_norm_
from torch.optim.lr_scheduler import LambdaLR
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

DTYPES = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add = parser.add_argument
    add("--steps", type=int, default=60, help="optimizer steps")
    add("--batch-size", type=int, default=16, help="per micro-batch, rank")
    add("--accum-steps", type=int, default=1, help="micro-batches a step")
    add("--lr", type=float, default=3e-3, help="peak learning rate")
    add("--warmup", type=int, default=10, help="steps of linear warmup")
    add("--weight-decay", type=float, default=0.1)
    add("--clip", type=float, default=1.0, help="max grad norm; 0: off")
    add("--precision", choices=DTYPES, default="fp32")
    add("--compile", action="store_true", help="torch.compile the model")
    add("--compile-backend", default="inductor")
    add("--fsdp", action="store_true", help="FSDP2 instead of DDP")
    add("--device", help="cpu, cuda, ...; default: the accelerator")
    add("--dropout", type=float, default=0.1)
    add("--seed", type=int, default=0)
    add("--log-every", type=int, default=20)
    add("--ckpt-every", type=int, default=0, help="0: no checkpoints")
    add("--ckpt-dir", default="checkpoints")
    add("--resume", metavar="PATH", help="continue from this checkpoint")
    add("--nonfinite-at", type=int, metavar="STEP", help="NaN loss there")
    add("--report-json", metavar="PATH", help="final numbers, as JSON")
    return parser.parse_args(argv)


def pick_device(name):
    """--device, else the accelerator if there is one, else the CPU."""
    if name:
        return torch.device(name)
    accelerator = torch.accelerator.current_accelerator(
        check_available=True
    )
    device = accelerator or torch.device("cpu")
    return device


def init_distributed(device):
    """Join torchrun's process group, if there is one: (device, rank,
    world size). On an accelerator, take the one LOCAL_RANK names."""
    if "RANK" not in os.environ:  # python train.py: one process
        return device, 0, 1
    if device.type != "cpu":
        device = torch.device(device.type, int(os.environ["LOCAL_RANK"]))
        torch.accelerator.set_device_index(device)
    backend = dist.get_default_backend_for_device(device)
    dist.init_process_group(backend=backend)
    return device, dist.get_rank(), dist.get_world_size()


def gather(obj, world):
    """Every rank's `obj`, in rank order (a list of one without ranks)."""
    objs = [obj] if world == 1 else [None] * world
    if world > 1:
        dist.all_gather_object(objs, obj)
    return objs


def make_data(n, seed):
    """n points in 16 dimensions, labelled by a fixed linear teacher."""
    draw = torch.Generator().manual_seed(seed)
    points = torch.randn(n, 16, generator=draw)
    teacher = torch.randn(16, 4, generator=draw.manual_seed(99))
    return TensorDataset(points, (points @ teacher).argmax(dim=1))


def make_model(dropout):
    return nn.Sequential(
        nn.Linear(16, 64),
        nn.GELU(),
        nn.Dropout(dropout),
        nn.LayerNorm(64),
        nn.Linear(64, 4),
    )


def is_fsdp_unit(module):
    """The modules FSDP2 shards on their own (the root takes the rest):
    for a transformer, its blocks."""
    return isinstance(module, nn.Linear)


def check_optimizer(optimizer, net):
    """An optimizer built before fully_shard holds the parameters it
    replaced, and would train nothing without an error."""
    held = {id(p) for g in optimizer.param_groups for p in g["params"]}
    if not held <= {id(p) for p in net.parameters()}:
        raise SystemExit("build the optimizer after fully_shard")


def make_optimizer(net, args):
    """AdamW; matrices decay, biases and norm weights do not."""
    params = [p for p in net.parameters() if p.requires_grad]
    groups = [
        {"params": [p for p in params if p.dim() >= 2]},
        {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(
        groups, lr=args.lr, weight_decay=args.weight_decay
    )


def lr_factor(step, args):
    """Linear warmup to the peak, then a cosine down to a tenth of it."""
    if step < args.warmup:
        return (step + 1) / (args.warmup + 1)
    progress = min(1.0, (step - args.warmup) / (args.steps - args.warmup))
    return 0.1 + 0.45 * (1 + math.cos(math.pi * progress))


def rng_states(device):
    states = {"cpu": torch.get_rng_state(), "python": random.getstate()}
    if device.type != "cpu":
        module = torch.get_device_module(device)
        states[device.type] = module.get_rng_state()
    return states  # numpy's state too? Save its array as a tensor.


def set_rng_states(states, device):
    torch.set_rng_state(states["cpu"])
    random.setstate(states["python"])
    if device.type != "cpu":
        torch.get_device_module(device).set_rng_state(states[device.type])


def batches(loader, sampler, epoch, position):
    """Micro-batches forever, from (epoch, position) on; with each, where
    the next one starts, for a checkpoint to resume mid-epoch."""
    while True:
        sampler.set_epoch(epoch)  # a new shuffle each epoch
        for i, batch in enumerate(loader):
            if i >= position:  # skipped after a resume: cheap here
                yield (epoch, i + 1), batch
        epoch, position = epoch + 1, 0


def save_checkpoint(path, state, net, optimizer, args, rank, world):
    """Every rank takes part; rank 0 writes, the others wait."""
    if args.fsdp:  # gather the shards: a full state dict on rank 0's CPU
        full = StateDictOptions(full_state_dict=True, cpu_offload=True)
        state["model"] = get_model_state_dict(net, options=full)
        state["optimizer"] = get_optimizer_state_dict(
            net, optimizer, options=full
        )
    else:
        state["model"] = net.state_dict()
        state["optimizer"] = optimizer.state_dict()
    state["rng"] = gather(rng_states(args.device), world)  # each rank's own
    if rank == 0:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        torch.save(state, path + ".tmp")
        os.replace(path + ".tmp", path)  # never a half-written file
        print(f"saved {os.path.basename(path)}")
    if world > 1:
        dist.barrier()


def load_checkpoint(path, net, optimizer, args, rank, world):
    ckpt = torch.load(path, map_location="cpu", weights_only=True)
    # A compiled model's state_dict() names its weights _orig_mod.*
    model = {
        k.removeprefix("_orig_mod."): v for k, v in ckpt["model"].items()
    }
    if args.fsdp:  # each rank keeps its shard of the full tensors
        full = StateDictOptions(full_state_dict=True)
        set_model_state_dict(net, model, options=full)
        set_optimizer_state_dict(
            net, optimizer, ckpt["optimizer"], options=full
        )
    else:
        net.load_state_dict(model)
        optimizer.load_state_dict(ckpt["optimizer"])
    if len(ckpt["rng"]) != world:
        raise SystemExit(f"{path} has {len(ckpt['rng'])} ranks' RNG states")
    set_rng_states(ckpt["rng"][rank], args.device)
    return ckpt


@torch.no_grad()
def evaluate(model, loader, autocast, device):
    """Mean loss and accuracy over every rank's share of the data."""
    model.eval()  # dropout off
    totals = torch.zeros(3, device=device)  # loss sum, correct, count
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        with autocast:
            logits = model(x)
        loss = F.cross_entropy(logits.float(), y, reduction="sum")
        correct = (logits.argmax(dim=1) == y).sum().float()
        count = torch.tensor(float(len(y)), device=device)
        totals += torch.stack([loss, correct, count])
    if dist.is_initialized():
        dist.all_reduce(totals)
    model.train()
    return (totals[0] / totals[2]).item(), (totals[1] / totals[2]).item()


def main(argv=None):
    args = parse_args(argv)
    if args.fsdp and "RANK" not in os.environ:
        raise SystemExit("--fsdp needs torchrun --nproc-per-node N")
    device, rank, world = init_distributed(pick_device(args.device))
    args.device = device  # this rank's
    torch.manual_seed(args.seed)  # the same initial weights on every rank
    net = make_model(args.dropout).to(device)
    ddp = None
    if args.fsdp:
        for unit in [m for m in net.modules() if is_fsdp_unit(m)]:
            fully_shard(unit)
        fully_shard(net)  # the rest: LayerNorm
        model = net
    elif world > 1:
        model = ddp = DDP(net)
    else:
        model = net
    torch.manual_seed(args.seed + rank)  # then each rank its own dropout
    random.seed(args.seed + rank)

    train_set, val_set = make_data(2048, seed=1), make_data(512, seed=2)
    sampler = DistributedSampler(train_set, world, rank, seed=args.seed)
    # Its own generator: iter(loader) takes no number from torch's.
    loader = DataLoader(
        train_set,
        args.batch_size,
        sampler=sampler,
        drop_last=True,
        generator=torch.Generator(),
    )
    val_sampler = DistributedSampler(val_set, world, rank, shuffle=False)
    val_loader = DataLoader(val_set, 256, sampler=val_sampler)

    optimizer = make_optimizer(net, args)
    check_optimizer(optimizer, net)
    scheduler = LambdaLR(optimizer, lambda step: lr_factor(step, args))
    dtype = DTYPES[args.precision]
    autocast = torch.autocast(device.type, dtype, enabled=dtype is not None)
    fp16 = dtype is torch.float16
    scaler = torch.amp.GradScaler(device.type, enabled=fp16)  # else a no-op

    step, epoch, position = 0, 0, 0
    if args.resume:
        ckpt = load_checkpoint(
            args.resume, net, optimizer, args, rank, world
        )
        scheduler.load_state_dict(ckpt["scheduler"])
        scaler.load_state_dict(ckpt["scaler"])
        step, (epoch, position) = ckpt["step"], ckpt["data"]
    if args.compile:  # after loading: the weights are the same tensors
        model = torch.compile(model, backend=args.compile_backend)
    data = batches(loader, sampler, epoch, position)
    losses, skipped = [], []

    model.train()
    while step < args.steps:
        loss_sum = torch.zeros((), device=device)
        for micro in range(args.accum_steps):
            where, (x, y) = next(data)
            x, y = x.to(device), y.to(device)
            sync = micro == args.accum_steps - 1  # all-reduce on the last
            if args.fsdp:
                net.set_requires_gradient_sync(sync)
            no_sync = ddp.no_sync() if ddp and not sync else None
            with no_sync or contextlib.nullcontext():  # forward, backward
                with autocast:
                    logits = model(x)
                    loss = F.cross_entropy(logits, y) / args.accum_steps
                if step == args.nonfinite_at and rank == world - 1:
                    loss = loss * float("nan")  # as a corrupt batch would
                scaler.scale(loss).backward()
            loss_sum += loss.detach()

        scaler.unscale_(optimizer)  # real gradients, before clipping
        max_norm = args.clip if args.clip > 0 else math.inf
        norm = clip_grad_norm_(net.parameters(), max_norm)
        if args.fsdp:
            norm = norm.full_tensor()
        bad = ~(torch.isfinite(loss_sum) & torch.isfinite(norm))
        stats = torch.stack([loss_sum.float(), bad.float()])
        if world > 1:  # every rank decides the same: skip if any is bad
            dist.all_reduce(stats)
        if stats[1].item() == 0:
            scaler.step(optimizer)
            scheduler.step()  # once per optimizer step that happened
        else:
            skipped.append(step)
            if rank == 0:
                print(f"step {step}: non-finite loss or gradient, skipped")
        scaler.update()  # a skip lowers fp16's scale
        optimizer.zero_grad(set_to_none=True)
        losses.append(stats[0].item() / world)
        step += 1

        if rank == 0 and (step % args.log_every == 0 or step == args.steps):
            lr = scheduler.get_last_lr()[0]
            print(f"step {step:4} | loss {losses[-1]:.3f} | lr {lr:.2e}")
        if args.ckpt_every and step % args.ckpt_every == 0:
            state = {
                "step": step,
                "data": where,  # the epoch, and where in it to go on
                "scheduler": scheduler.state_dict(),
                "scaler": scaler.state_dict(),
            }
            path = os.path.join(args.ckpt_dir, f"step{step}.pt")
            save_checkpoint(path, state, net, optimizer, args, rank, world)

    if args.report_json:  # every weight, on every rank: for the tests only
        params = [p.detach() for p in net.parameters()]
        if args.fsdp:  # while sharded: evaluating unshards the root's
            params = [p.full_tensor() for p in params]
        flat = torch.cat([p.float().reshape(-1) for p in params]).cpu()
        per_rank = gather((skipped, flat.tolist()), world)
    val_loss, accuracy = evaluate(model, val_loader, autocast, device)
    if rank == 0:
        print(f"eval | loss {val_loss:.3f} | accuracy {accuracy:.3f}")
    if rank == 0 and args.report_json:
        report = {
            "losses": losses,
            "skipped": [s for s, _ in per_rank],
            "replicas_equal": all(f == per_rank[0][1] for _, f in per_rank),
            "params": flat.tolist(),
            "scale": scaler.get_scale() if scaler.is_enabled() else None,
            "lr": scheduler.get_last_lr()[0],
            "eval": [val_loss, accuracy],
        }
        with open(args.report_json, "w") as f:
            json.dump(report, f)


if __name__ == "__main__":
    main()
    if dist.is_initialized():  # after main()'s DDP or FSDP model is gone
        # Keep the barrier's handle: no rank crashes at exit (the
        # distributed chapter's "Shutting down").
        done = dist.barrier(async_op=True)
        done.wait()
        dist.destroy_process_group()
# script: run by docs/complete/index.md's commands (tests/test_complete.py)
