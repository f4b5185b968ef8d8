"""Fresh processes for examples, without paying for ``import torch`` each time.

Importing torch takes about 3.5 s on the 2-core development machine, and every
example starts with ``import torch``: one new ``python`` per example would cost
minutes. A :class:`ProcessServer` is a process that has imported torch (and
nothing of the harness) and waits; for each request it forks a child, which is a
fresh interpreter in every way an example can tell (its own ``__main__``,
``sys.argv``, working directory, output, Python and NumPy random state; torch's
state is as right after ``import torch``), runs one script in it, and reports its
exit status and output. Children run in their own process group, are killed with
it when they overrun their timeout (after a Python traceback of where they were),
and die with the server.

Used for: every snippet run as pasted (``tests/test_fresh.py``: a server that has
imported torch and nothing else) and every rank of a multi-process example
(:mod:`sitelib.check.launch`: a server that has also imported the harness, which each
rank runs around the example).

    python -m sitelib.check.processes [MODULE ...]   # the server, having imported torch and
                                               # MODULEs; JSON lines on stdin/stdout
"""

from sitelib.check.processes.client import Child, ProcessServer, Request, process_server

__all__ = ["Child", "ProcessServer", "Request", "process_server"]
