import os
import pickle
import tempfile

import numpy as np
import torch

torch.manual_seed(0)
accelerator = torch.accelerator.current_accelerator(check_available=True)
device = accelerator or torch.device("cpu")
np.random.seed(0)

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "checkpoint.pt")
    # NumPy's state as get_state() returns it holds a NumPy array:
    torch.save({"numpy_rng": np.random.get_state()}, path)
    try:
        torch.load(path, weights_only=True)
    except pickle.UnpicklingError as err:
        print(type(err).__name__, str(err).split(".")[0])
        #> UnpicklingError Weights only load failed

    # The same state with its array stored as a tensor:
    name, keys, pos, has_gauss, gauss = np.random.get_state()
    saved = (name, torch.from_numpy(keys), pos, has_gauss, gauss)
    torch.save({"numpy_rng": saved}, path)
    expected = np.random.rand()  # the draw a resumed run must repeat

    ckpt = torch.load(path, weights_only=True)
    name, keys, pos, has_gauss, gauss = ckpt["numpy_rng"]
    np.random.set_state((name, keys.numpy(), pos, has_gauss, gauss))
    print("restored:", np.random.rand() == expected)
    #> restored: True
