import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# Without dtype=, autocast picks a different lower precision on each device.
print(torch.get_autocast_dtype("cpu"))
#> torch.bfloat16
print({torch.get_autocast_dtype(name) for name in ("cuda", "xpu", "mps")})
#> {torch.float16}

x = torch.randn(32, 20).to(device)  # x: [B, 20] float32
model = nn.Linear(20, 10).to(device)

# On the float32 lists of CUDA, XPU and MPS, not on the CPU's: CPU autocast
# runs them in their input's dtype.
fp32_but_on_cpu = {
    "softmax": lambda t: t.softmax(dim=-1),
    "log_softmax": lambda t: t.log_softmax(dim=-1),
    "sum": lambda t: t.sum(),
    "exp": torch.exp,
    "layer_norm": lambda t: nn.functional.layer_norm(t, t.shape[-1:]),
}
expected = torch.bfloat16 if device.type == "cpu" else torch.float32
with torch.autocast(device.type, dtype=torch.bfloat16):
    logits = model(x)  # logits: [B, 10] bfloat16
    for name, op in fp32_but_on_cpu.items():
        same = op(logits).dtype == expected
        print(f"{name}: bfloat16 on the CPU, float32 on GPUs: {same}")
        #> softmax: bfloat16 on the CPU, float32 on GPUs: True
        #> log_softmax: bfloat16 on the CPU, float32 on GPUs: True
        #> sum: bfloat16 on the CPU, float32 on GPUs: True
        #> exp: bfloat16 on the CPU, float32 on GPUs: True
        #> layer_norm: bfloat16 on the CPU, float32 on GPUs: True
    # binary_cross_entropy on probabilities: float32 under CPU autocast,
    # refused by CUDA's and XPU's, left in bfloat16 by MPS's.
    prob = torch.sigmoid(logits[:, 0])  # prob: [B] bfloat16
    target = torch.ones_like(prob)  # target: [B] bfloat16
    try:
        result = nn.functional.binary_cross_entropy(prob, target).dtype
    except RuntimeError as err:
        result = "refused" if "unsafe to autocast" in str(err) else err
    bce = {"cpu": torch.float32, "mps": torch.bfloat16}
    ok = result == bce.get(device.type, "refused")
    print("binary_cross_entropy: as this device's autocast rules:", ok)
    #> binary_cross_entropy: as this device's autocast rules: True
    probs = logits.float().softmax(dim=-1)  # probs: [B, 10] float32
print(probs.dtype)  # asked for explicitly: float32 on every device
#> torch.float32
