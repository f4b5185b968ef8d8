# requires: cuda
import torch

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

MiB = 2**20
pool = torch.cuda.MemPool()  # (1)!


def reserved():
    """What the pool holds from the driver: the sizes of its segments."""
    return sum(s["total_size"] for s in torch.cuda.memory_snapshot(pool.id))


def tensors(count, mib):
    with torch.cuda.use_mem_pool(pool):
        return [
            torch.empty(mib * MiB, dtype=torch.uint8, device=device)
            for _ in range(count)
        ]


before = torch.cuda.memory_stats()
short = tensors(8, 16)  # a short sequence's activations, say
print("8 x 16 MiB:", reserved() // MiB, "MiB reserved")
#> 8 x 16 MiB: 128 MiB reserved
del short  # (2)!
long = tensors(4, 32)  # then a sequence twice as long
print("4 x 32 MiB:", reserved() // MiB, "MiB reserved")
#> 4 x 32 MiB: 256 MiB reserved
after = torch.cuda.memory_stats()  # (3)!
for key in ("allocated_bytes.all.current", "reserved_bytes.all.current"):
    print(f"{key}: +{(after[key] - before[key]) // MiB} MiB")
    #> allocated_bytes.all.current: +128 MiB
    #> reserved_bytes.all.current: +256 MiB
