import contextlib
import io

import torch
from torch import nn
from torch._inductor.compiler_bisector import CompilerBisector

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


expected = seeded(model)


def matches_eager():  # (1)!
    torch._dynamo.reset()
    out = seeded(torch.compile(model))  # the default backend, inductor
    return torch.allclose(out, expected, atol=1e-5)


with contextlib.redirect_stdout(io.StringIO()):  # (2)!
    result = CompilerBisector.do_bisect(matches_eager)
print("backend:", result.backend)
#> backend: aot_eager_decomp_partition
print("subsystem:", result.subsystem)
#> subsystem: decomposition
print("culprit:", result.debug_info)
#> culprit: <OpOverload(op='aten.native_dropout', overload='default')>
