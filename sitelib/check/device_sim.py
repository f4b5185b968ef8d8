"""Run an example on the CPU as if its device were a separate accelerator.

An example's ``#>`` lines come from a CPU run. On a GPU two things differ that a
CPU run cannot show by itself:

1. **Random numbers drawn on the device come from the device's own generator**
   (CUDA's Philox, not the CPU's Mersenne Twister), seeded by the same
   ``torch.manual_seed`` call. Dropout in train mode, ``torch.randn(...,
   device=device)`` and weight initialisation of a module built with
   ``device=device`` all draw there, and they do not advance the CPU's generator.
2. **Moving a tensor to the device copies it**, while ``x.to(cpu)`` on the CPU
   returns ``x`` itself, so an in-place change of one shows in the other.

:func:`simulated_accelerator` makes a CPU run behave like that: the device idiom
(``torch.accelerator.current_accelerator(...)``) returns a marked CPU device;
tensors moved to it (or created on it) are copies, and what is computed from them
is "on the device"; every random operation on the device draws from a second
generator, seeded by each ``torch.manual_seed`` with a different value, and leaves
the CPU's generator alone. An example whose printed output depends on random
numbers drawn on the device, or on a device tensor aliasing a host one, prints
something else under it: the check in :mod:`sitelib.checks` reruns every example
this way and compares its output with the ``#>`` lines.

The example cannot tell the simulated device from the CPU (its ``device.type`` is
"cpu"), so where it saves and restores "the" generator state with
``torch.get_rng_state``/``set_rng_state``, the device's generator is saved and
restored with it, as on a machine whose only device is the CPU.

Not covered (stated in CONTRIBUTING.md's CUDA audit): float results that differ in the
last bits between CPU and GPU kernels, TF32, non-deterministic GPU kernels, random
tensors created with ``device=x.device`` (a fresh device object), and an example
that saves the CPU's generator state but forgets the accelerator's.
"""

from __future__ import annotations

import contextlib
import hashlib
import sys
import weakref
from collections.abc import Iterator
from dataclasses import dataclass, field

import torch
from torch.multiprocessing.reductions import StorageWeakRef
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

_SEEDED = torch.Tag.nondeterministic_seeded
_get_rng_state, _set_rng_state = torch.random.get_rng_state, torch.random.set_rng_state
_DEVICE_SEED_OFFSET = 0x9E3779B97F4A7C15 % 2**63  # any value other than 0 would do
_TO_HOST = {"cpu", "numpy", "tolist", "item"}


@dataclass
class DeviceRandomness:
    """What a simulated run saw: the example lines that drew random numbers on the device."""

    run_file: str
    lines: list[int] = field(default_factory=list)

    def record(self) -> None:
        frame = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_filename == self.run_file:
                if frame.f_lineno not in self.lines:
                    self.lines.append(frame.f_lineno)
                return
            frame = frame.f_back


class _State:
    def __init__(self, sentinel: torch.device, seen: DeviceRandomness) -> None:
        self.sentinel = sentinel
        self.seen = seen
        self.marked: dict[int, StorageWeakRef] = {}
        self.device_factory = 0  # > 0 while a call that names the device runs
        self.to_host = 0  # > 0 while a copy back to the host runs
        self.generator = torch.Generator().manual_seed(_DEVICE_SEED_OFFSET)

    def storage_key(self, t: torch.Tensor) -> int | None:
        try:
            return t.untyped_storage()._cdata
        except (RuntimeError, NotImplementedError):
            return None

    def is_marked(self, t: torch.Tensor) -> bool:
        key = self.storage_key(t)
        ref = self.marked.get(key) if key is not None else None
        if ref is None:
            return False
        if ref.expired():
            del self.marked[key]
            return False
        return True

    def mark(self, value) -> None:
        for t in _tensors(value):
            key = self.storage_key(t)
            if key is not None:
                self.marked[key] = StorageWeakRef(t.untyped_storage())

    def names_device(self, args, kwargs) -> bool:
        return any(a is self.sentinel for a in _flat(args)) or any(
            v is self.sentinel for v in _flat(kwargs.values())
        )

    def names_host(self, args, kwargs) -> bool:
        """``.to(...)`` naming the CPU (not the device): a copy back to the host."""
        for value in [*_flat(args[1:]), *_flat(kwargs.values())]:
            if isinstance(value, torch.device) and value is not self.sentinel:
                return value.type == "cpu"
            if isinstance(value, str) and value.split(":")[0] == "cpu":
                return True
        return False


def _flat(values) -> Iterator:
    for value in values:
        if isinstance(value, list | tuple):
            yield from _flat(value)
        else:
            yield value


def _tensors(value) -> Iterator[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _tensors(item)


class _FunctionMode(TorchFunctionMode):
    """Sees calls as written: ``x.to(device)``, ``torch.randn(..., device=device)``."""

    def __init__(self, state: _State) -> None:
        super().__init__()
        self.state = state

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        state = self.state
        name = getattr(func, "__name__", "")
        if name == "_parse_to" and state.names_device(args, kwargs):
            # Module.to(device) parses its arguments into a new device object: keep the mark.
            return (state.sentinel, *func(*args, **kwargs)[1:])
        if name in _TO_HOST or (name == "to" and state.names_host(args, kwargs)):
            state.to_host += 1
            try:
                out = func(*args, **kwargs)
                if isinstance(out, torch.Tensor) and out is args[0] and state.is_marked(out):
                    out = out.clone()  # on a GPU, .cpu() and .to("cpu") of a device tensor copy
                return out
            finally:
                state.to_host -= 1
        if state.names_device(args, kwargs):
            state.device_factory += 1
            try:
                out = func(*args, **kwargs)
            finally:
                state.device_factory -= 1
            if name == "to" and out is args[0] and not state.is_marked(out):
                out = out.clone()  # on a GPU, moving a host tensor to the device copies it
            state.mark(out)
            return out
        return func(*args, **kwargs)


class _DispatchMode(TorchDispatchMode):
    """Sees every operator: marks results computed from device tensors and runs
    random operators on the device's generator."""

    def __init__(self, state: _State) -> None:
        super().__init__()
        self.state = state

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        state = self.state
        inputs = list(_tensors(list(args) + list(kwargs.values())))
        on_device = state.device_factory > 0 or any(state.is_marked(t) for t in inputs)
        if on_device and _SEEDED in func.tags and "generator" not in kwargs:
            state.seen.record()
            cpu = _get_rng_state()
            _set_rng_state(state.generator.get_state())
            try:
                out = func(*args, **kwargs)
            finally:
                state.generator.set_state(_get_rng_state())
                _set_rng_state(cpu)
        else:
            out = func(*args, **kwargs)
        if on_device and not state.to_host:
            state.mark(out)
        return out


@contextlib.contextmanager
def simulated_accelerator(run_file: str) -> Iterator[DeviceRandomness]:
    """Within the block, the device idiom returns a CPU device that behaves like a
    separate accelerator (see the module's doc). Yields what the run drew on it."""
    sentinel = torch.device("cpu")
    seen = DeviceRandomness(str(run_file))
    state = _State(sentinel, seen)
    manual_seed, accelerator = torch.manual_seed, torch.accelerator.current_accelerator

    def current_accelerator(check_available: bool = False) -> torch.device | None:
        # Only the example's own device line gets the marked device: torch's internals
        # asking the same question (an optimizer's graph-capture check) get the truth.
        if sys._getframe(1).f_code.co_filename == seen.run_file:
            return sentinel
        return accelerator(check_available=check_available)

    def seed_both(seed):
        state.generator.manual_seed((int(seed) + _DEVICE_SEED_OFFSET) % 2**63)
        return manual_seed(seed)

    # The device's state at the moment each CPU state was handed out, found again by the
    # very tensor handed out (weakly held), or else by its bytes. By the tensor first:
    # when everything was drawn on the device, two CPU states taken at different times
    # are equal (activation checkpointing saves one in forward, and fork_rng takes
    # another before it restores the first), and only their identity tells them apart.
    by_tensor: list[tuple[weakref.ref, torch.Tensor]] = []
    by_bytes: dict[bytes, torch.Tensor] = {}

    def get_rng_state() -> torch.Tensor:
        cpu = _get_rng_state()
        device = state.generator.get_state()
        by_tensor[:] = [(ref, s) for ref, s in by_tensor if ref() is not None]
        by_tensor.append((weakref.ref(cpu), device))
        by_bytes[hashlib.sha256(cpu.numpy().tobytes()).digest()] = device
        return cpu

    def set_rng_state(new_state: torch.Tensor) -> None:
        device = next((s for ref, s in by_tensor if ref() is new_state), None)
        if device is None:
            device = by_bytes.get(hashlib.sha256(new_state.cpu().numpy().tobytes()).digest())
        if device is not None:
            state.generator.set_state(device)
        _set_rng_state(new_state)

    patches = [
        (torch.accelerator, "current_accelerator", current_accelerator),
        (torch, "manual_seed", seed_both),
        (torch, "get_rng_state", get_rng_state),
        (torch, "set_rng_state", set_rng_state),
        (torch.random, "get_rng_state", get_rng_state),
        (torch.random, "set_rng_state", set_rng_state),
    ]
    originals = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    for owner, name, value in patches:
        setattr(owner, name, value)
    try:
        with _FunctionMode(state), _DispatchMode(state):
            yield seen
    finally:
        for owner, name, value in originals:
            setattr(owner, name, value)
