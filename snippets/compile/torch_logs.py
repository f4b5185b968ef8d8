import logging
import os
import re

import torch

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")


class Kept(logging.Handler):
    """Keeps the messages of the records it is given."""

    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def normalise(x):
    if x.max() > 1:  # a tensor's value decides: a graph break
        x = x / x.max()
    return x.relu()


def trimmed(line):  # paths differ between machines; lines do not
    return re.sub(r"\S*\.py", "<file>", line.strip())


torch._dynamo.reset()  # (1)!
os.environ.pop("TORCH_LOGS", None)  # (2)!
torch._logging.set_logs(recompiles=True, graph_breaks=True)  # (3)!
kept = Kept()
logging.getLogger("torch._dynamo").addHandler(kept)  # (4)!
compiled = torch.compile(normalise, backend="eager")
compiled(torch.randn(4).to(device))
compiled(torch.randn(5).to(device))  # a new size: a recompile
logging.getLogger("torch._dynamo").removeHandler(kept)
torch._logging.set_logs()  # the defaults again: no logs

breaks = [m for m in kept.messages if m.startswith("Graph break in")]
graph_break = breaks[0].splitlines()
print(trimmed(graph_break[0]))
#> Graph break in user code at <file>:24
print(trimmed(graph_break[1]))
#> Graph Break Reason: Data-dependent branching
recompiles = [m for m in kept.messages if m.startswith("Recompiling")]
recompile = recompiles[0].splitlines()
for line in recompile[:3]:
    print(trimmed(line).split("  #")[0])
    #> Recompiling function normalise in <file>:23
    #> triggered by the following guard failure(s):
    #> - 0/0: tensor 'x' size mismatch at index 0. expected 4, actual 5
