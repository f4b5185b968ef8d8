import os
import pickle
import tempfile
import textwrap

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
        # "To rebuild me, call os.mkdir(path)":
        return (os.mkdir, (self.path,))


with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "checkpoint.pt")
    marker = os.path.join(tmp, "made_by_torch_load")
    checkpoint = {"model": model.state_dict(), "extra": Payload(marker)}
    torch.save(checkpoint, path)

    try:
        torch.load(path)  # no weights_only argument: the default applies
    except pickle.UnpicklingError as err:
        text = str(err).replace("\n", " ")
        sentences = [s.strip() for s in text.split(". ")]
        print(sentences[0])
        #> Weights only load failed
        changed = next(s for s in sentences if "2.6" in s)
        print(textwrap.fill(changed, width=68))
        '''
        In PyTorch 2.6, we changed the default value of the `weights_only`
        argument in `torch.load` from `False` to `True`
        '''
        blocked = next(s for s in sentences if "GLOBAL" in s)
        # It names os.mkdir by its platform module: posix (Linux, macOS) or
        # nt (Windows).
        blocked = blocked.replace(os.mkdir.__module__, "<platform>")
        print(textwrap.fill(blocked, width=68))
        '''
        Trying to load unsupported GLOBAL <platform>.mkdir whose module
        <platform> is blocked
        '''
    print(os.path.exists(marker))  # refused before anything ran
    #> False

    torch.load(path, weights_only=False)  # old default: unpickle anything
    print(os.path.exists(marker))  # loading the file ran code
    #> True

    # Tensors, dicts and numbers load fine under the default:
    torch.save({"model": model.state_dict(), "epoch": 3}, path)
    print(sorted(torch.load(path)))
    #> ['epoch', 'model']
