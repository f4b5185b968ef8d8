import os
import pickle
import tempfile

import torch
from torch import nn

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")

model = nn.Linear(4, 2).to(device)


class Payload:
    """Any pickled object can name a function for the unpickler to call."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (os.mkdir, (self.path,))  # "to rebuild me, call os.mkdir(path)"


with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "checkpoint.pt")
    marker = os.path.join(tmp, "made_by_torch_load")
    torch.save({"model": model.state_dict(), "extra": Payload(marker)}, path)

    try:
        torch.load(path)  # no weights_only argument: the default applies
    except pickle.UnpicklingError as err:
        sentences = [s.strip() for s in str(err).replace("\n", " ").split(". ")]
        print(sentences[0])
        #> Weights only load failed
        print(next(s for s in sentences if "2.6" in s))
        '''
        In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`
        '''
        blocked = next(s for s in sentences if "GLOBAL" in s)
        # It names os.mkdir by its platform module: posix (Linux, macOS) or nt (Windows).
        print(blocked.replace(os.mkdir.__module__, "<platform>"))
        #> Trying to load unsupported GLOBAL <platform>.mkdir whose module <platform> is blocked
    print(os.path.exists(marker))  # refused before anything ran
    #> False

    torch.load(path, weights_only=False)  # the old default: unpickle anything
    print(os.path.exists(marker))  # loading the file ran code
    #> True

    torch.save({"model": model.state_dict(), "epoch": 3}, path)  # tensors, dicts, numbers
    print(sorted(torch.load(path)))  # load fine under the default
    #> ['epoch', 'model']
