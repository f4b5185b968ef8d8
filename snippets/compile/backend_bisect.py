import torch
import torch._inductor.config
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

x = torch.randn(64, 20).to(device)  # x: [B, 20]
model = nn.Sequential(
    nn.Linear(20, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 5)
).to(device)


def seeded(fn):
    torch.manual_seed(1)  # the same random draws for every run
    return fn(x)


BACKENDS = ("eager", "aot_eager", "aot_eager_decomp_partition", "inductor")


def bisect(backends=BACKENDS):
    """The first backend that raises or differs from eager, or None."""
    expected = seeded(model)
    for backend in backends:  # (1)!
        torch._dynamo.reset()
        try:
            out = seeded(torch.compile(model, backend=backend))
        except Exception as err:
            return f"{backend} raised {type(err).__name__}"
        if not torch.allclose(out, expected, atol=1e-5):
            return f"{backend} differs from eager"
    return None


print(bisect())
#> aot_eager_decomp_partition differs from eager
with torch._inductor.config.patch(fallback_random=True):  # (2)!
    print(bisect())
    #> None
