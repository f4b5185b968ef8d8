"""Train a small classifier: the whole training step in one script.

    python train.py                              # one process
    torchrun --nproc-per-node 2 train.py         # two processes, DDP
    torchrun --nproc-per-node 2 train.py --fsdp  # two processes, FSDP2
    python train.py --ckpt-every 20              # checkpoints/step20/ ...
    python train.py --resume checkpoints/step20  # or --resume auto

Your model and data go between the two marked lines below. Faults to try:
--nonfinite-at STEP makes the last rank's loss NaN at STEP (its gradients
stay finite); --corrupt-at STEP puts a NaN in rank 0's input; both are
skipped on every rank. --kill-at STEP kills the last rank there, and
--kill-in-save STEP kills rank 0 while it saves: under torchrun
--max-restarts 1 --resume auto, the run goes on from its last checkpoint.
"""

import argparse
import contextlib
import io
import json
import math
import os
import random
import re
import shutil
import signal
import sys
import time
import warnings

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.nn.functional as F
from torch import nn
from torch.distributed.checkpoint.state_dict import (
    get_state_dict,
    set_state_dict,
)
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.nn.utils import clip_grad_norm_
from torch.optim.lr_scheduler import LambdaLR
from torch.utils.data import (
    DataLoader,
    Dataset,
    DistributedSampler,
    Sampler,
    TensorDataset,
)

DTYPES = {"fp32": None, "bf16": torch.bfloat16, "fp16": torch.float16}

# ---- Your model and data: change these four (the rest trains any) ----


def make_data(args):
    """(training set, validation set): items are (input, label) pairs. For
    a random augmentation, give the training set a sample(i, generator)
    method that draws only from that generator (see Samples)."""
    weights = torch.Generator().manual_seed(99)
    teacher = torch.randn(16, 4, generator=weights)

    def labelled(n, seed):  # n points, labelled by a fixed linear teacher
        draw = torch.Generator().manual_seed(seed)
        points = torch.randn(n, 16, generator=draw)
        return TensorDataset(points, (points @ teacher).argmax(dim=1))

    return labelled(2048, seed=1), labelled(511, seed=2)  # 511: odd


def make_model(args):
    return nn.Sequential(
        nn.Linear(16, 64),
        nn.GELU(),
        nn.Dropout(args.dropout),
        nn.LayerNorm(64),
        nn.Linear(64, 4),
    )


def is_fsdp_unit(module):
    """The modules FSDP2 shards on their own (the root takes the rest):
    for a transformer, its blocks."""
    return isinstance(module, nn.Linear)


def make_optimizer(net, args):
    """AdamW; matrices decay, biases and norm weights do not. Called on
    the parameters as FSDP2 leaves them (distribute)."""
    params = [p for p in net.parameters() if p.requires_grad]
    groups = [
        {"params": [p for p in params if p.dim() >= 2]},
        {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(
        groups, lr=args.lr, weight_decay=args.weight_decay
    )


# ---- The training step: nothing below names your model or data ----


def fail(message):
    """Stop every rank with the fix, printed once (by rank 0); torchrun's
    failure report ends with it too (each rank's error file)."""
    message = f"{os.path.basename(sys.argv[0])}: error: {message}"
    if os.environ.get("RANK", "0") == "0":
        print(message, file=sys.stderr)
    if path := os.environ.get("TORCHELASTIC_ERROR_FILE"):
        info = {"py_callstack": message, "timestamp": str(int(time.time()))}
        report = {"message": {"message": message, "extraInfo": info}}
        with open(path, "w") as f:
            json.dump(report, f)
    raise SystemExit(2)


class Parser(argparse.ArgumentParser):
    """argparse, with --help and errors printed by rank 0 only."""

    def _print_message(self, message, file=None):
        if os.environ.get("RANK", "0") == "0":
            super()._print_message(message, file)

    def error(self, message):
        self.print_usage(sys.stderr)
        fail(message)


def parse_args(argv=None):
    parser = Parser(description=__doc__.split("\n")[0])
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
    add("--num-workers", type=int, default=0, help="loader processes")
    add("--dropout", type=float, default=0.1)
    add("--seed", type=int, default=0)
    add("--log-every", type=int, default=20)
    add("--eval-every", type=int, default=0, help="0: at the end only")
    add("--ckpt-every", type=int, default=0, help="0: no checkpoints")
    add("--ckpt-dir", default="checkpoints")
    add("--keep", type=int, default=0, help="newest checkpoints; 0: all")
    add("--resume", metavar="PATH", help="a checkpoint; auto: the newest")
    add("--nonfinite-at", type=int, metavar="STEP", help="NaN loss there")
    add("--corrupt-at", type=int, metavar="STEP", help="NaN input there")
    add("--kill-at", type=int, metavar="STEP", help="kill a rank there")
    add("--kill-in-save", type=int, metavar="STEP", help="and in a save")
    add("--report-json", metavar="PATH", help="final numbers, as JSON")
    args = parser.parse_args(argv)
    wrong = [
        (args.steps < 1, "--steps must be 1 or more"),
        (args.batch_size < 1, "--batch-size must be 1 or more"),
        (args.accum_steps < 1, "--accum-steps must be 1 or more"),
        (args.lr <= 0, "--lr must be above 0"),
        (not 0 <= args.warmup < args.steps, "--warmup: 0 to --steps - 1"),
        (args.clip < 0, "--clip must be 0 (off) or more"),
        (not 0 <= args.dropout < 1, "--dropout must be in [0, 1)"),
        (args.num_workers < 0, "--num-workers must be 0 or more"),
        (args.log_every < 1, "--log-every must be 1 or more"),
        (args.eval_every < 0, "--eval-every must be 0 (off) or more"),
        (args.ckpt_every < 0, "--ckpt-every must be 0 (off) or more"),
        (args.keep < 0, "--keep must be 0 (all) or more"),
        (args.fsdp and "RANK" not in os.environ, "--fsdp needs torchrun"),
    ]
    for bad, fix in wrong:
        if bad:
            parser.error(fix)
    if args.resume == "auto":  # the newest, or a fresh start without one
        args.resume = newest_checkpoint(args.ckpt_dir)
    elif args.resume and not complete(args.resume):
        parser.error(f"--resume {args.resume}: not a complete checkpoint")
    return args


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


class Samples(Dataset):
    """The training set as the loader reads it: item (epoch, i) is sample
    i, its random augmentation drawn from a generator seeded by (seed,
    epoch, i). Any rank, any worker, any resume draws the same."""

    def __init__(self, data, seed):
        self.data, self.seed = data, seed

    def __len__(self):
        return len(self.data)

    def __getitem__(self, key):
        epoch, i = key
        if not hasattr(self.data, "sample"):  # no random augmentation
            return self.data[i]
        seed = (self.seed * 1_000_003 + epoch) * 1_000_033 + i
        return self.data.sample(i, torch.Generator().manual_seed(seed))


class Position(Sampler):
    """Each epoch's shuffle, DistributedSampler's, from sample `start` on
    (every rank's samples counted), this rank taking every world-th: a
    resumed run loads no batch taken before, at any number of ranks."""

    def __init__(self, data, rank, world, seed):
        self.n, self.rank, self.world = len(data), rank, world
        self.seed = seed
        self.total = math.ceil(self.n / world) * world  # padded by repeats
        self.epoch, self.start = 0, 0

    def move_to(self, epoch, start):
        self.epoch, self.start = epoch, start

    def __iter__(self):
        draw = torch.Generator().manual_seed(self.seed + self.epoch)
        order = torch.randperm(self.n, generator=draw).tolist()
        order = (order * math.ceil(self.total / self.n))[: self.total]
        mine = order[self.start + self.rank :: self.world]
        return ((self.epoch, i) for i in mine)

    def __len__(self):
        return (self.total - self.start - self.rank - 1) // self.world + 1


def batches(loader, position, epoch, start):
    """Micro-batches forever, from sample `start` of `epoch` on; with each,
    where the next one starts, for a checkpoint to resume mid-epoch."""
    taken = loader.batch_size * position.world  # a micro-batch, all ranks
    while True:
        position.move_to(epoch, start)
        for i, data in enumerate(loader, start=1):
            yield (epoch, start + i * taken), data
        epoch, start = epoch + 1, 0


def check_optimizer(optimizer, net):
    """An optimizer of the parameters fully_shard replaced would train
    nothing, without an error."""
    held = {id(p) for g in optimizer.param_groups for p in g["params"]}
    if not held <= {id(p) for p in net.parameters()}:
        fail("build the optimizer after fully_shard, in distribute()")


def distribute(net, args, world):
    """FSDP2, DDP or neither, then the optimizer: built here, on the
    parameters as sharding leaves them, so never before it."""
    ddp = None
    if args.fsdp:  # bf16 or fp16 compute, float32 shards and sums
        dtype = DTYPES[args.precision]
        mixed = MixedPrecisionPolicy(dtype, reduce_dtype=torch.float32)
        for unit in [m for m in net.modules() if is_fsdp_unit(m)]:
            fully_shard(unit, mp_policy=mixed)
        fully_shard(net, mp_policy=mixed)  # the root: the rest
        model = net
    elif world > 1:
        model = ddp = DDP(net)
    else:
        model = net
    optimizer = make_optimizer(net, args)
    check_optimizer(optimizer, net)
    return model, ddp, optimizer


def sync_buffers(net, world):
    """Rank 0's buffers (BatchNorm's running statistics) on every rank:
    before each step, as DDP does by default, and each evaluation and
    save. FSDP2 keeps each rank's own: so this does it for both."""
    if world > 1:
        for buffer in net.buffers():
            dist.broadcast(buffer, src=0)


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


def complete(path):
    """DCP writes a checkpoint's .metadata last: without it, it is half."""
    return os.path.isfile(os.path.join(path, ".metadata"))


def newest_checkpoint(folder):
    """The newest complete checkpoint in `folder`, or None."""
    found = []
    for name in os.listdir(folder) if os.path.isdir(folder) else []:
        m = re.fullmatch(r"step(\d+)", name)
        if m and complete(os.path.join(folder, name)):
            found.append((int(m[1]), os.path.join(folder, name)))
    return max(found)[1] if found else None


def prune(folder, keep):
    """Keep the newest `keep` complete checkpoints, and no half one."""
    steps = sorted(
        (int(m[1]), name)
        for name in os.listdir(folder)
        if (m := re.fullmatch(r"step(\d+)", name))
    )
    kept = [n for _, n in steps if complete(os.path.join(folder, n))]
    kept = kept[-keep:] if keep else kept
    for _, name in steps:
        if name not in kept:
            shutil.rmtree(os.path.join(folder, name))


def first_attempt():
    """Not restarted by torchrun after a failure (--max-restarts)."""
    return os.environ.get("TORCHELASTIC_RESTART_COUNT", "0") == "0"


class Writer(dcp.FileSystemWriter):
    """DCP's file writer; with `die`, rank 0 dies before .metadata, as a
    crash in the middle of a save would leave the checkpoint."""

    def __init__(self, path, die):
        super().__init__(path)
        self.die = die

    def finish(self, metadata, results):
        if self.die:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().finish(metadata, results)


def dcp_call(function, state, world, **where):
    """dcp.save or dcp.load. In one process, with no process group, DCP
    warns that it assumes one process: it is right, so quietly. Torch
    2.10's DCP warns that TypedStorage is deprecated, from its own code."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "torch.distributed is disabled")
        warnings.filterwarnings("ignore", "TypedStorage is deprecated")
        return function(state, no_dist=world == 1, **where)


def meaning(args, world):
    """What a checkpoint's state means, which a resume must not change, and
    the fix when it does."""
    batch = args.batch_size * args.accum_steps * world
    return {
        "global batch": (batch, "--batch-size x --accum-steps x ranks"),
        "precision": (args.precision, "--precision"),
    }


def save_checkpoint(path, state, net, optimizer, args, rank, world):
    """A distributed checkpoint: every rank writes its own shards, and no
    rank gathers the whole model. Rank 0 writes .metadata last."""
    sync_buffers(net, world)
    model, optim = get_state_dict(net, optimizer)  # sharded under FSDP2
    state["rng"] = gather(rng_states(args.device), world)  # each rank's own
    state["meaning"] = meaning(args, world)
    run = io.BytesIO()
    torch.save(state, run)  # the rest of the run: small, saved once
    final = path  # a complete one (best) stays until its successor is
    if complete(final):
        path = final + ".new"
    if rank == 0 and os.path.isdir(path):  # a half one, from a crash
        shutil.rmtree(path)
    if world > 1:
        dist.barrier()
    die = state["step"] == args.kill_in_save and first_attempt()
    writer = Writer(path, die and rank == 0)
    tensors = {"model": model, "optimizer": optim, "run": run}
    dcp_call(dcp.save, tensors, world, storage_writer=writer)
    if rank == 0:
        if path != final:  # the new one is whole: it takes the name
            shutil.rmtree(final)
            os.rename(path, final)
        print(f"saved {os.path.basename(final)}")
        prune(args.ckpt_dir, args.keep)
    if world > 1:
        dist.barrier()


def load_checkpoint(path, net, optimizer, args, rank, world):
    holder = {"run": io.BytesIO()}
    dcp_call(dcp.load, holder, world, checkpoint_id=path)
    holder["run"].seek(0)
    state = torch.load(holder["run"], weights_only=True)
    for name, (now, fix) in meaning(args, world).items():  # before the rest
        saved = state["meaning"][name][0]
        if saved != now:
            fail(f"{path} has a {name} of {saved}, not {now}: set {fix}")
    # What to load into: this run's shapes and shards. Resharding is DCP's.
    model, optim = get_state_dict(net, optimizer)
    tensors = {"model": model, "optimizer": optim}
    dcp_call(dcp.load, tensors, world, checkpoint_id=path)
    set_state_dict(
        net, optimizer, model_state_dict=model, optim_state_dict=optim
    )
    if len(state["rng"]) == world:  # else each rank's generators start anew
        set_rng_states(state["rng"][rank], args.device)
    return state


@torch.no_grad()
def evaluate(net, loader, autocast, args, rank, world):
    """Mean loss and accuracy over the validation set, each sample once:
    the sampler pads the ranks' shares to one length with repeats, which
    count for nothing."""
    sync_buffers(net, world)
    net.eval()  # dropout off, BatchNorm's running statistics
    device = args.device
    totals = torch.zeros(3, device=device)  # loss sum, correct, count
    seen = 0  # this rank's samples so far; its k-th is rank + k * world
    for x, y in loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        at = rank + world * torch.arange(seen, seen + len(y), device=device)
        real = (at < len(loader.dataset)).float()  # not a repeat
        seen += len(y)
        with autocast:
            logits = net(x)
        loss = F.cross_entropy(logits.float(), y, reduction="none")
        right = (logits.argmax(dim=1) == y).float()
        totals += torch.stack([loss @ real, right @ real, real.sum()])
    if world > 1:
        dist.all_reduce(totals)
    if args.fsdp:
        net.reshard()  # the root kept its parameters gathered
    net.train()
    loss, correct, count = totals.tolist()
    return loss / count, correct / count


def main(argv=None):
    args = parse_args(argv)
    device, rank, world = init_distributed(pick_device(args.device))
    args.device = device  # this rank's
    torch.manual_seed(args.seed)  # the same initial weights on every rank
    net = make_model(args).to(device)
    model, ddp, optimizer = distribute(net, args, world)
    torch.manual_seed(args.seed + rank)  # then each rank its own dropout
    random.seed(args.seed + rank)

    train_set, val_set = make_data(args)
    position = Position(train_set, rank, world, args.seed)
    # Its own generator: iter(loader) takes no number from torch's.
    common = dict(generator=torch.Generator())
    common["pin_memory"] = device.type != "cpu"  # for non_blocking copies
    loader = DataLoader(
        Samples(train_set, args.seed),
        args.batch_size,
        sampler=position,
        drop_last=True,
        num_workers=args.num_workers,
        **common,
    )
    # Read here, not in workers: they would be forked mid-epoch, while the
    # training loader's run, and a fork then can hang.
    val_sampler = DistributedSampler(val_set, world, rank, shuffle=False)
    val_loader = DataLoader(val_set, 256, sampler=val_sampler, **common)

    scheduler = LambdaLR(optimizer, lambda step: lr_factor(step, args))
    dtype = DTYPES[args.precision]
    autocast = torch.autocast(device.type, dtype, enabled=dtype is not None)
    fp16 = dtype is torch.float16
    scaler = torch.amp.GradScaler(device.type, enabled=fp16)  # else a no-op

    step, epoch, start, best = 0, 0, 0, math.inf
    if args.resume:
        ckpt = load_checkpoint(
            args.resume, net, optimizer, args, rank, world
        )
        scheduler.load_state_dict(ckpt["scheduler"])
        scaler.load_state_dict(ckpt["scaler"])
        step, (epoch, start) = ckpt["step"], ckpt["data"]
        best = ckpt["best"]
        if rank == 0:
            print(f"resumed from {os.path.basename(args.resume)}")
    if args.compile:  # after loading: the weights are the same tensors
        model = torch.compile(model, backend=args.compile_backend)
    data = batches(loader, position, epoch, start)
    losses, skipped, evals = [], [], []
    since, clock = step, time.perf_counter()  # for the samples/s

    model.train()
    while step < args.steps:
        if step == args.kill_at and rank == world - 1 and first_attempt():
            os.kill(os.getpid(), signal.SIGKILL)  # as a dead machine would
        sync_buffers(net, world)
        kept = [b.clone() for b in net.buffers()]  # back if step skipped
        loss_sum = torch.zeros((), device=device)
        for micro in range(args.accum_steps):
            where, (x, y) = next(data)
            x = x.to(device, non_blocking=True)
            y = y.to(device, non_blocking=True)
            if step == args.corrupt_at and rank == 0:
                x = x.clone()
                x[0] = math.nan  # one corrupt sample
            sync = micro == args.accum_steps - 1  # all-reduce on the last
            if args.fsdp:
                net.set_requires_gradient_sync(sync)
            no_sync = ddp.no_sync() if ddp and not sync else None
            with no_sync or contextlib.nullcontext():  # forward, backward
                with autocast:
                    logits = model(x)
                    loss = F.cross_entropy(logits, y) / args.accum_steps
                scaler.scale(loss).backward()
            loss_sum += loss.detach()
        if step == args.nonfinite_at and rank == world - 1:
            loss_sum += math.nan  # this rank's loss: its gradients are fine

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
            for buffer, before in zip(net.buffers(), kept, strict=True):
                buffer.copy_(before)  # BatchNorm saw the bad batch: undo
            if rank == 0:
                print(f"step {step}: non-finite loss or gradient, skipped")
        scaler.update()  # fp16: a step whose gradients overflowed lowers it
        optimizer.zero_grad(set_to_none=True)
        losses.append(stats[0].item() / world)
        step += 1

        if rank == 0 and (step % args.log_every == 0 or step == args.steps):
            samples = args.batch_size * args.accum_steps * world
            rate = (step - since) * samples / (time.perf_counter() - clock)
            line = f"step {step:4} | loss {losses[-1]:.3f}"
            line += f" | lr {scheduler.get_last_lr()[0]:.2e}"
            line += f" | {rate:,.0f} samples/s"
            if device.type != "cpu":
                peak = torch.accelerator.max_memory_allocated() / 2**20
                line += f" | peak {peak:,.0f} MiB"
            print(line)
        ends, improved = step == args.steps, False
        if ends or (args.eval_every and step % args.eval_every == 0):
            val_loss, accuracy = evaluate(
                net, val_loader, autocast, args, rank, world
            )
            evals.append([step, val_loss, accuracy])
            improved, best = val_loss < best, min(best, val_loss)
            if rank == 0:
                print(f"eval {step:4} | loss {val_loss:.3f}", end="")
                print(f" | accuracy {accuracy:.3f}")
        state = {
            "step": step,
            "data": where,  # the epoch, and where in it to go on
            "best": best,  # the lowest evaluation loss so far
            "scheduler": scheduler.state_dict(),
            "scaler": scaler.state_dict(),
        }
        if args.ckpt_every and improved:  # kept beside the last
            path = os.path.join(args.ckpt_dir, "best")
            save_checkpoint(path, state, net, optimizer, args, rank, world)
        if args.ckpt_every and (ends or step % args.ckpt_every == 0):
            path = os.path.join(args.ckpt_dir, f"step{step}")
            save_checkpoint(path, state, net, optimizer, args, rank, world)
        if rank == 0 and (step % args.log_every == 0 or ends):
            since, clock = step, time.perf_counter()

    if args.report_json:  # every weight, on every rank: for the tests only
        params = [p.detach() for p in net.parameters()]
        if args.fsdp:
            params = [p.full_tensor() for p in params]
        tensors = params + [b.detach() for b in net.buffers()]
        flat = torch.cat([t.float().reshape(-1) for t in tensors]).cpu()
        per_rank = gather((skipped, flat.tolist()), world)
        optim = get_state_dict(net, optimizer)[1]["state"]  # by name
        moments = []  # every value of its state, in one order
        for value in (optim[n][k] for n in sorted(optim) for k in optim[n]):
            if hasattr(value, "full_tensor"):  # a shard
                value = value.full_tensor()
            moments += torch.as_tensor(value).float().reshape(-1).tolist()
    if rank == 0 and args.report_json:
        report = {
            "losses": losses,
            "skipped": [s for s, _ in per_rank],
            "replicas_equal": all(f == per_rank[0][1] for _, f in per_rank),
            "params": flat.tolist(),
            "scale": scaler.get_scale() if scaler.is_enabled() else None,
            "lr": scheduler.get_last_lr()[0],
            "eval": evals[-1][1:] if evals else None,
            "evals": evals,
            "optimizer": moments,  # every value of its state
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
