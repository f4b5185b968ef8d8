import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(32, 20).to(device)  # x: [B, 20]
model = nn.Linear(20, 10, bias=False).to(device)


class MatMul(torch.autograd.Function):
    """x @ w.T with a backward written by hand, as custom kernels have."""

    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return x @ w.t()

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        return grad @ w, grad.t() @ x


class AmpMatMul(torch.autograd.Function):
    """The same, decorated: backward runs under forward's autocast state."""

    @staticmethod
    @torch.amp.custom_fwd(device_type=device.type)
    def forward(ctx, x, w):
        return MatMul.forward(ctx, x, w)

    @staticmethod
    @torch.amp.custom_bwd(device_type=device.type)
    def backward(ctx, grad):
        return MatMul.backward(ctx, grad)


for fn in (MatMul, AmpMatMul):
    model.zero_grad()
    with torch.autocast(device.type, dtype=torch.bfloat16):
        out = fn.apply(x, model.weight)  # out: [B, 10] bfloat16
        loss = out.float().pow(2).mean()  # loss: [] float32
    try:
        loss.backward()  # backward runs here, outside the autocast block
        result = f"ok, weight.grad is {model.weight.grad.dtype}"
    except RuntimeError as err:  # a bfloat16 grad @ a float32 weight
        result = f"RuntimeError, mixed dtypes: {'same dtype' in str(err)}"
    print(f"{fn.__name__}: {result}")
    #> MatMul: RuntimeError, mixed dtypes: True
    #> AmpMatMul: ok, weight.grad is torch.float32
