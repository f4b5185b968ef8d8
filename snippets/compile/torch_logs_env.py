import logging
import os
import textwrap

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


kept = Kept()
logging.getLogger("torch._logging").addHandler(kept)
os.environ["TORCH_LOGS"] = "recompiles"  # as if the shell had set it
torch._logging.set_logs(graph_breaks=True)  # (1)!
del os.environ["TORCH_LOGS"]
logging.getLogger("torch._logging").removeHandler(kept)
print(textwrap.fill(kept.messages[0], 60))
'''
Using TORCH_LOGS environment variable for log settings,
ignoring call to set_logs
'''
