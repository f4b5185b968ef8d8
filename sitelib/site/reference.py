"""API names in prose link to torch's reference, of the release the site is built with.

A Python-Markdown extension, named ``sitelib.site.reference`` in mkdocs.yml's
``markdown_extensions`` (so Zensical links them too). In a page's prose, inline code
that names a torch API (```nn.Linear```, ```optimizer.zero_grad()```,
```torch.load(path, weights_only=True)```) becomes a plain link to its page on
docs.pytorch.org, under ``/docs/<major.minor>/`` of the torch installed at build
time (2.13 for 2.13.0): the first mention of each name in each section (a heading
starts a section); never in a heading, an admonition's title, a link or a code
block. The build needs no network: the URL comes from the rule below, not from
torch's ``objects.inv``.

**What counts as an API name** (docs/authors.md, "Links to the torch reference"):
inline code that is a dotted name, or a call of one (``name(...)``, arguments
ignored; a leading ``.`` as in ```.grad``` is allowed), and

1. begins with ``torch.``, ``nn.``, ``F.``, ``dist.`` or ``Tensor.``
   (:data:`PREFIXES`: the short forms the pages import), or
2. is in :data:`ALIASES`, the committed table of the other forms the pages write
   (``GradScaler``, ``fully_shard``, ``optimizer.step``, ``model.train``...); an entry
   ending in ``()`` matches only a call (```backward()``` is a tensor's, a bare
   ```backward``` may be a Function's).

Such a name must exist in the installed torch (imported and looked up attribute by
attribute): a misspelt or removed one fails the build with :class:`ReferenceError`,
naming the page and line. A part that begins with ``_`` (``torch._dynamo.explain``,
``nn.Module.__call__``) has no reference page: the code is left as it is. Anything
else (``model(x)``, ``loss``, ``set_to_none=True``) is not an API name and is left
alone.

**The URL rule** (:func:`reference_url`), for a qualified name ``q``:

1. the longest entry of :data:`PAGES` that is ``q`` or, ending with ``.``, a prefix
   of it: its page, with ``#q`` as the anchor unless the entry gives its own or
   ``q`` is the module the page is about (``torch.utils.checkpoint.`` ->
   ``checkpoint.html#q``; ``torch.utils.checkpoint`` -> ``checkpoint.html``);
2. a module without an entry fails the build (it has no generated page);
3. a member of a class whose members share its page (everything but
   :data:`OWN_PAGES`: ``torch.Tensor``, ``torch.optim.Optimizer``) is an anchor on
   the class's page: ``generated/torch.nn.Module.html#torch.nn.Module.zero_grad``;
4. a dtype: ``tensor_attributes.html#torch.dtype``;
5. everything else has a page of its own: ``generated/q.html``.

A name the installed torch does not have fails the build, naming page and line,
except under a torch older than the pinned one (:func:`older_than_pinned`), where
a name the pinned release added is left unlinked.

tests/test_site.py checks the rule against a sample of URLs read from torch's own
documentation sources. Hand-written links to ``docs.pytorch.org/docs/<anything>/``
are rewritten to the build's release too (:func:`versioned`), so no page points at
``/stable/``, which moves with every release while the pages' outputs come from
the pinned one. A weekly workflow (.github/workflows/links.yml) checks that every
such URL answers.
"""

from __future__ import annotations

import ast
import functools
import html
import importlib
import inspect
import re
import xml.etree.ElementTree as etree

from markdown import Markdown
from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor

from sitelib.site.errors import BuildError
from sitelib.site.markdown_scan import code_lines, page_file
from sitelib.site.torch_range import pinned, release_key

HOST = "https://docs.pytorch.org/docs/"
# A hand-written link into a release's (or stable's) API reference.
VERSIONED = re.compile(r"https://docs\.pytorch\.org/docs/(?:stable|main|\d+\.\d+)/")

# The short forms the pages import (`import torch.nn as nn`, `import torch.nn.functional
# as F`, `import torch.distributed as dist`, `from torch import Tensor`).
PREFIXES = {
    "torch": "torch",
    "nn": "torch.nn",
    "F": "torch.nn.functional",
    "dist": "torch.distributed",
    "Tensor": "torch.Tensor",
}

# Other forms the pages write, as written (call parentheses dropped), and the name
# each stands for. A variable's method is here only where the pages always mean one
# class by it (`optimizer` an Optimizer, `scaler` a GradScaler).
ALIASES = {
    # tensors and autograd
    ".grad": "torch.Tensor.grad",
    "backward()": "torch.Tensor.backward",  # called: a tensor's (a Function's is not)
    "loss.backward": "torch.Tensor.backward",
    "loss.item": "torch.Tensor.item",
    ".item": "torch.Tensor.item",
    "loss.detach": "torch.Tensor.detach",
    "detach": "torch.Tensor.detach",
    ".clone": "torch.Tensor.clone",
    ".cpu": "torch.Tensor.cpu",
    ".float": "torch.Tensor.float",
    "logits.float": "torch.Tensor.float",
    ".retain_grad": "torch.Tensor.retain_grad",
    "requires_grad": "torch.Tensor.requires_grad",
    "requires_grad_": "torch.Tensor.requires_grad_",
    "x.requires_grad_": "torch.Tensor.requires_grad_",
    "data_ptr": "torch.Tensor.data_ptr",
    "x.flatten": "torch.Tensor.flatten",
    "x.view": "torch.Tensor.view",
    "out.sum": "torch.Tensor.sum",
    "no_grad": "torch.no_grad",
    "inference_mode": "torch.inference_mode",
    "detect_anomaly": "torch.autograd.detect_anomaly",
    "set_detect_anomaly": "torch.autograd.set_detect_anomaly",
    "gradcheck": "torch.autograd.gradcheck.gradcheck",
    "autograd.Function": "torch.autograd.Function",
    "saved_tensors_hooks": "torch.autograd.graph.saved_tensors_hooks",
    "save_on_cpu": "torch.autograd.graph.save_on_cpu",
    "record_function": "torch.autograd.profiler.record_function",
    # operations the pages name bare (the autocast lists)
    **{
        op: f"torch.{op}"
        for op in (
            "addcdiv",
            "addcmul",
            "addmm",
            "allclose",
            "atan2",
            "cat",
            "exp",
            "index_copy",
            "logsumexp",
            "scatter_add",
            "sqrt",
            "stack",
            "tensordot",
            "vdot",
        )
    },
    **{
        f: f"torch.nn.functional.{f}"
        for f in (
            "binary_cross_entropy",
            "binary_cross_entropy_with_logits",
            "cross_entropy",
            "layer_norm",
            "log_softmax",
            "mse_loss",
            "nll_loss",
        )
    },
    # modules
    **{
        m: f"torch.nn.{m}"
        for m in (
            "BCEWithLogitsLoss",
            "CrossEntropyLoss",
            "LayerNorm",
            "Linear",
            "MSELoss",
            "MaxUnpool2d",
            "ReLU",
            "Sequential",
            "SyncBatchNorm",
        )
    },
    "model.train": "torch.nn.Module.train",
    "model.eval": "torch.nn.Module.eval",
    "eval": "torch.nn.Module.eval",
    "model.zero_grad": "torch.nn.Module.zero_grad",
    "model.parameters": "torch.nn.Module.parameters",
    "module.parameters": "torch.nn.Module.parameters",
    "model.state_dict": "torch.nn.Module.state_dict",
    "model.forward": "torch.nn.Module.forward",
    ".forward": "torch.nn.Module.forward",
    "forward": "torch.nn.Module.forward",
    "model.compile": "torch.nn.Module.compile",
    "register_forward_hook": "torch.nn.Module.register_forward_hook",
    "register_full_backward_hook": "torch.nn.Module.register_full_backward_hook",
    "clip_grad_norm_": "torch.nn.utils.clip_grad_norm_",
    "get_total_norm": "torch.nn.utils.get_total_norm",
    "parameters_to_vector": "torch.nn.utils.parameters_to_vector",
    "spectral_norm": "torch.nn.utils.spectral_norm",
    "weight_norm": "torch.nn.utils.weight_norm",
    # optimizers and schedules
    **{o: f"torch.optim.{o}" for o in ("Adagrad", "Adam", "AdamW", "LBFGS", "SGD")},
    **{
        s: f"torch.optim.lr_scheduler.{s}"
        for s in (
            "CosineAnnealingLR",
            "LambdaLR",
            "LinearLR",
            "OneCycleLR",
            "SequentialLR",
            "StepLR",
        )
    },
    "optimizer.step": "torch.optim.Optimizer.step",
    "optimizer.zero_grad": "torch.optim.Optimizer.zero_grad",
    "head_optimizer.zero_grad": "torch.optim.Optimizer.zero_grad",
    "zero_grad": "torch.optim.Optimizer.zero_grad",
    "optimizer.state_dict": "torch.optim.Optimizer.state_dict",
    "optimizer.load_state_dict": "torch.optim.Optimizer.load_state_dict",
    "optimizer.add_param_group": "torch.optim.Optimizer.add_param_group",
    "add_param_group": "torch.optim.Optimizer.add_param_group",
    "scheduler.step": "torch.optim.lr_scheduler.LRScheduler.step",
    "lr_scheduler.step": "torch.optim.lr_scheduler.LRScheduler.step",
    "scheduler.state_dict": "torch.optim.lr_scheduler.LRScheduler.state_dict",
    "scheduler.load_state_dict": "torch.optim.lr_scheduler.LRScheduler.load_state_dict",
    "get_lr": "torch.optim.lr_scheduler.LRScheduler.get_lr",
    # mixed precision
    "GradScaler": "torch.amp.GradScaler",
    "autocast": "torch.autocast",
    "custom_fwd": "torch.amp.custom_fwd",
    "custom_bwd": "torch.amp.custom_bwd",
    "scaler.scale": "torch.amp.GradScaler.scale",
    "scaler.step": "torch.amp.GradScaler.step",
    "scaler.update": "torch.amp.GradScaler.update",
    "scaler.unscale_": "torch.amp.GradScaler.unscale_",
    "unscale_": "torch.amp.GradScaler.unscale_",
    "scaler.get_scale": "torch.amp.GradScaler.get_scale",
    "scaler.state_dict": "torch.amp.GradScaler.state_dict",
    # data
    "DataLoader": "torch.utils.data.DataLoader",
    "TensorDataset": "torch.utils.data.TensorDataset",
    "DistributedSampler": "torch.utils.data.distributed.DistributedSampler",
    "sampler.set_epoch": "torch.utils.data.distributed.DistributedSampler.set_epoch",
    "set_epoch": "torch.utils.data.distributed.DistributedSampler.set_epoch",
    "get_worker_info": "torch.utils.data.get_worker_info",
    # memory
    "checkpoint": "torch.utils.checkpoint.checkpoint",
    "checkpoint_sequential": "torch.utils.checkpoint.checkpoint_sequential",
    "create_selective_checkpoint_contexts": (
        "torch.utils.checkpoint.create_selective_checkpoint_contexts"
    ),
    "CheckpointPolicy": "torch.utils.checkpoint.CheckpointPolicy",
    # compile
    "cudagraph_mark_step_begin": "torch.compiler.cudagraph_mark_step_begin",
    "current_accelerator": "torch.accelerator.current_accelerator",
    # many processes
    "DistributedDataParallel": "torch.nn.parallel.DistributedDataParallel",
    "DDP": "torch.nn.parallel.DistributedDataParallel",
    "no_sync": "torch.nn.parallel.DistributedDataParallel.no_sync",
    "ddp_model.no_sync": "torch.nn.parallel.DistributedDataParallel.no_sync",
    **{
        c: f"torch.distributed.{c}"
        for c in (
            "all_gather_into_tensor",
            "all_gather_object",
            "all_reduce",
            "barrier",
            "broadcast_object_list",
            "init_process_group",
            "monitored_barrier",
            "reduce_scatter_tensor",
        )
    },
    "fully_shard": "torch.distributed.fsdp.fully_shard",
    "MixedPrecisionPolicy": "torch.distributed.fsdp.MixedPrecisionPolicy",
    "set_requires_gradient_sync": "torch.distributed.fsdp.FSDPModule.set_requires_gradient_sync",
    "model.set_requires_gradient_sync": (
        "torch.distributed.fsdp.FSDPModule.set_requires_gradient_sync"
    ),
    "DTensor": "torch.distributed.tensor.DTensor",
    "Shard": "torch.distributed.tensor.placement_types.Shard",
    "full_tensor": "torch.distributed.tensor.DTensor.full_tensor",
    ".full_tensor": "torch.distributed.tensor.DTensor.full_tensor",
    "to_local": "torch.distributed.tensor.DTensor.to_local",
    "p.grad.to_local": "torch.distributed.tensor.DTensor.to_local",
    **{
        s: f"torch.distributed.checkpoint.state_dict.{s}"
        for s in (
            "StateDictOptions",
            "get_state_dict",
            "set_model_state_dict",
            "set_optimizer_state_dict",
            "set_state_dict",
        )
    },
}

# Names documented on a page other than their own (autoclass / autofunction in torch's
# docs/source): an entry ending with "." covers every name under it; a page without
# "#" gets "#<qualified name>" as its anchor. Modules need an entry (rule 2).
PAGES = {
    "torch": "torch.html",
    "torch.accelerator": "accelerator.html",
    "torch.amp": "amp.html",
    "torch.amp.": "amp.html",
    # torch's amp page documents the scaler in its "Gradient Scaling" section
    # (under the deprecated torch.cuda.amp name), not as torch.amp.GradScaler.
    "torch.amp.GradScaler": "amp.html#gradient-scaling",
    "torch.amp.GradScaler.": "amp.html#gradient-scaling",
    "torch.autocast": "amp.html",
    "torch.cpu.amp": "amp.html",
    "torch.cpu.amp.": "amp.html",
    "torch.cuda.amp": "amp.html",
    "torch.cuda.amp.": "amp.html",
    "torch.autograd": "autograd.html",
    "torch.autograd.Function": "autograd.html",
    "torch.autograd.detect_anomaly": "autograd.html",
    "torch.autograd.set_detect_anomaly": "autograd.html",
    "torch.autograd.graph.": "autograd.html",
    "torch.autograd.gradcheck": "generated/torch.autograd.gradcheck.gradcheck.html",
    "torch.backends.": "backends.html",
    "torch.cuda": "cuda.html",
    "torch.distributed": "distributed.html",
    "torch.distributed.": "distributed.html",
    "torch.distributed.checkpoint": "distributed.checkpoint.html",
    "torch.distributed.checkpoint.": "distributed.checkpoint.html",
    "torch.distributed.fsdp.": "distributed.fsdp.fully_shard.html",
    "torch.distributed.tensor.": "distributed.tensor.html",
    "torch.finfo": "type_info.html",
    "torch.func": "func.html",
    "torch.func.": "func.api.html",
    "torch.nn": "nn.html",
    "torch.nn.functional": "nn.functional.html",
    "torch.nn.init.": "nn.init.html",
    "torch.nn.utils.parametrizations": "nn.html#module-torch.nn.utils.parametrizations",
    "torch.nn.utils.prune": "nn.html#module-torch.nn.utils.prune",
    "torch.optim": "optim.html",
    "torch.optim.lr_scheduler": "optim.html#how-to-adjust-learning-rate",
    "torch.Size": "size.html",
    "torch.special.": "special.html",
    "torch.testing.": "testing.html",
    "torch.utils.benchmark.": "benchmark_utils.html",
    "torch.utils.checkpoint": "checkpoint.html",
    "torch.utils.checkpoint.": "checkpoint.html",
    "torch.utils.data": "data.html",
    "torch.utils.data.": "data.html",
    "torch.utils.deterministic.": "deterministic.html",
}
# Classes whose members each have a page of their own (rule 3's exceptions).
OWN_PAGES = {"torch.Tensor", "torch.optim.Optimizer"}


class ReferenceError(BuildError):  # noqa: A001 (the build's error, named for what it checks)
    """An API name the installed torch does not have; the message starts with ``file:line:``."""


# -- names -------------------------------------------------------------------------------
def _dotted(node: ast.AST) -> list[str] | None:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute) and (head := _dotted(node.value)) is not None:
        return [*head, node.attr]
    return None


def written_name(code: str) -> str | None:
    """The dotted name inline code writes (``a.b``, or ``a.b()`` for a call, whatever
    its arguments; a leading ``.`` kept: ``.grad``), or None when it is anything else."""
    text = code.strip()
    lead = "." if text.startswith(".") else ""
    try:
        node = ast.parse("_" + text if lead else text, mode="eval").body
    except SyntaxError:
        return None
    call = isinstance(node, ast.Call)
    parts = _dotted(node.func if call else node)
    if not parts:
        return None
    if lead:
        if parts[0] != "_":
            return None
        parts = parts[1:]
    return lead + ".".join(parts) + ("()" if call else "")


def qualified_name(written: str) -> str | None:
    """What a written name stands for (an API name), or None when it is not one."""
    for form in (written, written.removesuffix("()")):  # `backward()`, then `backward`
        if form in ALIASES:
            return ALIASES[form]
    written = written.removesuffix("()")
    head, _, rest = written.partition(".")
    if head in PREFIXES and not written.startswith("."):
        return PREFIXES[head] + (f".{rest}" if rest else "")
    return None


def is_private(qualified: str) -> bool:
    return any(part.startswith("_") for part in qualified.split("."))


def resolve(qualified: str):
    """The object a qualified name names in the installed torch, or raise LookupError
    saying which part is missing. Attribute by attribute, importing a module where an
    attribute is not (yet) there; where a function hides a module of the same name
    (``torch.autograd.gradcheck``), the module's attribute."""
    parts = qualified.split(".")
    obj = importlib.import_module(parts[0])
    for j, part in enumerate(parts[1:], 1):
        prefix = ".".join(parts[:j])
        if hasattr(obj, part):
            obj = getattr(obj, part)
        elif (found := _module_attribute(prefix, part)) is not None:
            obj = found
        else:
            raise LookupError(f"torch has no {qualified} ({prefix} has no {part})")
    return obj


def _module_attribute(module: str, name: str):
    """``module.name``: an attribute of the module, or a submodule; None if neither."""
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        pass
    try:
        return importlib.import_module(f"{module}.{name}")
    except ImportError:
        return None


def release(version: str | None = None) -> str:
    """``2.13`` for torch 2.13.0 (the installed torch by default): the docs' folder."""
    if version is None:
        import torch

        version = torch.__version__
    major, minor = re.findall(r"\d+", version)[:2]
    return f"{major}.{minor}"


def reference_url(qualified: str, obj=None, version: str | None = None) -> str:
    """The URL of a qualified name's entry in the reference (the rule above)."""
    base = f"{HOST}{release(version)}/"
    entries = [k for k in PAGES if k == qualified or (k.endswith(".") and qualified.startswith(k))]
    if obj is None:
        obj = resolve(qualified)
    if entries:
        entry = max(entries, key=len)
        page = PAGES[entry]
        if "#" in page or (entry == qualified and inspect.ismodule(obj)):
            return base + page  # a module's page, or a section the entry names
        return f"{base}{page}#{qualified}"
    if inspect.ismodule(obj):
        raise LookupError(f"no reference page for the module {qualified}: add it to PAGES")
    parent, _, _ = qualified.rpartition(".")
    if parent and parent not in OWN_PAGES and inspect.isclass(_safe_resolve(parent)):
        return f"{base}generated/{parent}.html#{qualified}"
    import torch

    if isinstance(obj, torch.dtype):
        return f"{base}tensor_attributes.html#torch.dtype"
    return f"{base}generated/{qualified}.html"


def _safe_resolve(qualified: str):
    try:
        return resolve(qualified)
    except LookupError:
        return None


@functools.cache
def older_than_pinned() -> bool:
    """Whether the installed torch is older than the release requirements.lock pins
    (``make test-torch VERSION=2.10.0`` builds the pages with it): the pages teach the
    pinned release, and a name it added (``linear_cross_entropy``, new in 2.13) is
    missing there, not misspelt, so it is left unlinked instead of failing the build."""
    import torch

    return release_key(torch.__version__) < release_key(pinned())


@functools.cache
def link_for(qualified: str, version: str | None = None) -> str:
    """The reference URL of a qualified name, or ``!`` and why it has none (cached:
    a page names the same API many times)."""
    try:
        return reference_url(qualified, resolve(qualified), version)
    except LookupError as e:
        return f"!{e}"


def versioned(url: str, version: str | None = None) -> str:
    """A hand-written docs.pytorch.org reference link, moved to the build's release."""
    return VERSIONED.sub(f"{HOST}{release(version)}/", url)


def versioned_html(fragment: str, version: str | None = None) -> str:
    """Every ``href`` into the reference in HTML (the notebook pages) versioned."""
    return re.sub(
        r'href="(https://docs\.pytorch\.org/docs/[^"]*)"',
        lambda m: f'href="{versioned(m[1], version)}"',
        fragment,
    )


# -- the extension -----------------------------------------------------------------------
LINKED = re.compile(r'<a class="ref" href="(?P<href>[^"]+)" title="(?P<name>\S+) in the torch')


def linked_names(fragment: str) -> dict[str, str]:
    """``{qualified name: URL}`` of the reference links the extension wrote in HTML."""
    return {m["name"]: m["href"] for m in LINKED.finditer(fragment)}


STASHED = re.compile("\x02wzxhzdk:(\\d+)\x03")
SKIP = {"pre", "a", "h1", "h2", "h3", "h4", "h5", "h6", "summary"}
HEADING = re.compile(r"h[1-6]")


class _Links(Treeprocessor):
    def __init__(self, md: Markdown, extension: ReferenceExtension) -> None:
        super().__init__(md)
        self.extension = extension

    def _text(self, element) -> str:
        text = STASHED.sub(
            lambda m: str(self.md.htmlStash.rawHtmlBlocks[int(m[1])]), element.text or ""
        )
        return html.unescape(re.sub(r"<[^>]+>", "", text))

    def run(self, root):
        parents = {child: parent for parent in root.iter() for child in parent}
        seen: set[str] = set()
        problems: list[str] = []
        for element in list(root.iter()):
            if HEADING.fullmatch(element.tag):
                seen = set()
                continue
            if element.tag == "a" and element.get("href"):
                element.set("href", versioned(element.get("href"), self.extension.version))
            if element.tag != "code" or self._skipped(element, parents):
                continue
            code = self._text(element)
            written = written_name(code)
            qualified = qualified_name(written) if written else None
            if qualified is None or is_private(qualified):
                continue
            url = link_for(qualified, self.extension.version)
            if url.startswith("!"):
                if not older_than_pinned():
                    problems.append(self._where(code, url[1:]))
                continue
            if qualified in seen:
                continue
            seen.add(qualified)
            self._wrap(element, parents[element], url, qualified)
        if problems:
            raise ReferenceError("\n".join(dict.fromkeys(problems)))

    def _skipped(self, element, parents) -> bool:
        node = parents.get(element)
        while node is not None:
            if node.tag in SKIP or "admonition-title" in (node.get("class") or "").split():
                return True
            node = parents.get(node)
        return False

    def _wrap(self, code, parent, url: str, qualified: str) -> None:
        index = list(parent).index(code)
        link = etree.Element(
            "a",
            {
                "href": url,
                "class": "ref",
                "title": f"{qualified} in the torch {release(self.extension.version)} reference",
            },
        )
        link.tail, code.tail = code.tail, None
        parent.remove(code)
        link.append(code)
        parent.insert(index, link)

    def _where(self, code: str, problem: str) -> str:
        """``file:line: ...``: the page's file where the builder names it, else the
        text as Markdown received it (before any preprocessor changed it)."""
        page = page_file(self.md)
        if page is None:
            name, text = "<markdown>", "\n".join(self.extension.source.lines)
        else:
            name = page[0]
            try:
                text = page[1].read_text("utf-8")
            except OSError:
                text = ""
        blank = code_lines(text)
        line = next(
            (
                str(n)
                for n, row in enumerate(text.split("\n"), 1)
                if n not in blank and f"`{code}`" in row
            ),
            "?",
        )
        return f"{name}:{line}: `{code}` names no torch API: {problem}"


class _SourceLines(Preprocessor):
    """Keeps the text as Markdown received it (plain Python-Markdown names no file)."""

    lines: list[str] = []

    def run(self, lines: list[str]) -> list[str]:
        self.lines = list(lines)
        return lines


class ReferenceExtension(Extension):
    def __init__(self, **kwargs) -> None:
        self.config = {"release": ["", "the torch release to link (default: the installed one)"]}
        super().__init__(**kwargs)

    @property
    def version(self) -> str | None:
        return self.getConfig("release") or None

    def extendMarkdown(self, md: Markdown) -> None:  # noqa: N802 (Markdown's API)
        md.registerExtension(self)
        self.source = _SourceLines(md)
        md.preprocessors.register(self.source, "reference-source", 1001)
        # After the inline patterns (20) have made the code spans, before the
        # short-code class (5) and MkDocs' link rewriting.
        md.treeprocessors.register(_Links(md, self), "reference-links", 7)


def makeExtension(**kwargs) -> ReferenceExtension:  # noqa: N802 (Python-Markdown's entry point)
    return ReferenceExtension(**kwargs)
