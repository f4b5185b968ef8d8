import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

# Without dtype=, autocast picks a different lower precision on each device.
print(torch.get_autocast_dtype("cpu"), torch.get_autocast_dtype("cuda"))
#> torch.bfloat16 torch.float16

x = torch.randn(32, 20).to(device)  # x: [B, 20] float32
model = nn.Linear(20, 10).to(device)

# On CUDA's float32 list, not on the CPU's: CPU autocast runs them in their
# input's dtype.
cuda_fp32_only = {
    "softmax": lambda t: t.softmax(dim=-1),
    "log_softmax": lambda t: t.log_softmax(dim=-1),
    "sum": lambda t: t.sum(),
    "exp": torch.exp,
    "layer_norm": lambda t: nn.functional.layer_norm(t, t.shape[-1:]),
}
expected = torch.bfloat16 if device.type == "cpu" else torch.float32
with torch.autocast(device.type, dtype=torch.bfloat16):
    logits = model(x)  # logits: [B, 10] bfloat16
    for name, op in cuda_fp32_only.items():
        same = op(logits).dtype == expected
        print(f"{name}: bfloat16 on the CPU, float32 on CUDA: {same}")
        #> softmax: bfloat16 on the CPU, float32 on CUDA: True
        #> log_softmax: bfloat16 on the CPU, float32 on CUDA: True
        #> sum: bfloat16 on the CPU, float32 on CUDA: True
        #> exp: bfloat16 on the CPU, float32 on CUDA: True
        #> layer_norm: bfloat16 on the CPU, float32 on CUDA: True
    # binary_cross_entropy on probabilities: float32 on the CPU, refused by
    # CUDA's autocast.
    prob = torch.sigmoid(logits[:, 0])  # prob: [B] bfloat16
    target = torch.ones_like(prob)  # target: [B] bfloat16
    try:
        result = nn.functional.binary_cross_entropy(prob, target).dtype
    except RuntimeError as err:
        result = "error" if "unsafe to autocast" in str(err) else str(err)
    ok = result == ("error" if device.type == "cuda" else torch.float32)
    print("binary_cross_entropy: float32 on the CPU, an error on CUDA:", ok)
    #> binary_cross_entropy: float32 on the CPU, an error on CUDA: True
    probs = logits.float().softmax(dim=-1)  # probs: [B, 10] float32
print(probs.dtype)  # asked for explicitly: float32 on every device
#> torch.float32
