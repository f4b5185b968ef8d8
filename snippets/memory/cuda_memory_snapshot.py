# requires: cuda
import os
import tempfile

import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Sequential(
    nn.Linear(256, 1024), nn.ReLU(), nn.Linear(1024, 10)
).to(device)
x = torch.randn(4096, 256).to(device)  # x: [B, 256]
y = torch.randint(0, 10, (4096,)).to(device)  # y: [B]

torch.cuda.memory._record_memory_history(max_entries=100_000)  # (1)!
try:
    F.cross_entropy(model(x), y).backward()
    snapshot = torch.cuda.memory._snapshot()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "step.pickle")
        torch.cuda.memory._dump_snapshot(path)  # (2)!
        print(os.path.getsize(path) > 0)
        #> True
finally:
    torch.cuda.memory._record_memory_history(enabled=None)  # stop

print("segments" in snapshot, "device_traces" in snapshot)
#> True True
events = snapshot["device_traces"][torch.cuda.current_device()]
allocs = [e for e in events if e["action"] == "alloc"]
hidden = 4096 * 1024 * 4  # bytes of the ReLU's output
print(max(e["size"] for e in allocs) >= hidden)
#> True
