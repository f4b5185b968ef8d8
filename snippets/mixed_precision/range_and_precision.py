import torch

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

for dtype in (torch.float32, torch.float16, torch.bfloat16):
    info = torch.finfo(dtype)
    line = f"{dtype}: max {info.max:.2e}, smallest normal {info.tiny:.2e}"
    print(f"{line}, eps {info.eps:.1e}")
    #> torch.float32: max 3.40e+38, smallest normal 1.18e-38, eps 1.2e-07
    #> torch.float16: max 6.55e+04, smallest normal 6.10e-05, eps 9.8e-04
    #> torch.bfloat16: max 3.39e+38, smallest normal 1.18e-38, eps 7.8e-03

# Range: 1e-8 is below half of float16's smallest subnormal, 2**-24 (6e-8).
grad = torch.tensor([1e-8]).to(device)
print(grad.half().item(), f"{grad.bfloat16().item():.3e}")
#> 0.0 1.001e-08
# What a GradScaler does: multiply first, then store.
scaled = (grad * 65536).half()
print(f"{scaled.item():.3e}", f"{scaled.float().item() / 65536:.3e}")
#> 6.552e-04 9.997e-09
big = torch.tensor([60000.0, 70000.0]).to(device)  # the top of the range
print(big.half().tolist(), big.bfloat16().tolist())
#> [60000.0, inf] [59904.0, 70144.0]
# Where float16 rounds off:
edges = torch.tensor([2e-8, 4e-8, 65519.0, 65520.0]).to(device)
print(edges.half().tolist())
#> [0.0, 5.960464477539063e-08, 65504.0, inf]

# Precision: updates of 1e-3 and 1e-4 to a weight of 1.0, in each dtype.
weight = torch.tensor([1.0]).to(device)
for dtype in (torch.float32, torch.float16, torch.bfloat16):
    updated = [weight.to(dtype) + update for update in (1e-3, 1e-4)]
    print(dtype, [round(w.item(), 6) for w in updated])
    #> torch.float32 [1.001, 1.0001]
    #> torch.float16 [1.000977, 1.0]
    #> torch.bfloat16 [1.0, 1.0]
