"""Startup file for every notebook kernel the build runs: deprecation warnings are errors.

A page must not teach an API that PyTensor (or JAX, or Python) has deprecated. So in each kernel the site build
(conf.py) and `make nb` (docsite/run_notebook.py) start, DeprecationWarning, PendingDeprecationWarning and
FutureWarning raise instead of printing, whoever emits them: PyTensor, the page's own code, and warnings Python
attributes to a module the default filters hide, such as the one `Op.__init_subclass__` emits for the
deprecated `infer_shape(self, fgraph, node, shapes)` signature (attributed to `<frozen abc>`, so a default
build never showed it).

How it reaches the kernels: both set the environment variable PYTHONSTARTUP to this file before starting a
kernel. IPython runs that file once the kernel is up, just before the first cell (a plain `python` runs it only
in an interactive session, so Sphinx and the tests are not affected). The filters are not in
PYTHONWARNINGS because that applies from interpreter start, and raising there kills the kernel before it
answers (ipykernel's start-up calls tornado, whose `IOLoop.current()` calls `asyncio.get_event_loop()` with no
running loop: a DeprecationWarning on Python 3.12).

A page that shows a warning on purpose still can: `warnings.catch_warnings(record=True)` plus
`warnings.simplefilter("always")` replaces these filters inside the `with` block.

This file runs in the page's namespace: it leaves no names behind.
"""

import re as _re
import warnings as _warnings

for _category in (DeprecationWarning, PendingDeprecationWarning, FutureWarning):
    _warnings.filterwarnings("error", category=_category)

# A third-party library's own deprecation noise, that no page can avoid, is ignored: each by its whole message
# (a regular expression anchored at both ends; only an object's address is left open), its category and the
# module Python attributes it to, with the reason. Both come from the kernel itself, not from any page.
_IGNORED: list[tuple[str, type[Warning], str, str]] = [
    (_re.escape("There is no current event loop"), DeprecationWarning, "tornado.ioloop",
     "ipykernel starts its event loop through tornado's IOLoop.current(), which calls "
     "asyncio.get_event_loop() with no running loop (after this file runs, before the first cell)"),
    (_re.escape("For consistency across implementations, it is recommended that `do_shutdown` either be a "
                "coroutine function (`async def`) or return an awaitable object (like an `asyncio.Future`). It "
                "might become a requirement in the future. Coroutine functions and awaitables have been supported "
                "since ipykernel 6.0 (2021). <bound method IPythonKernel.do_shutdown of ")
     + r"<ipykernel\.ipkernel\.IPythonKernel object at 0x[0-9a-f]+>> does not seem to return an awaitable",
     PendingDeprecationWarning, "ipykernel.kernelbase",
     "ipykernel 7 warns about its own IPythonKernel.do_shutdown when the build shuts the kernel down"),
]

for _pattern, _category, _module, _reason in _IGNORED:
    _warnings.filterwarnings("ignore", message=_pattern + r"\Z", category=_category,
                             module=_re.escape(_module) + r"\Z")

del _re, _warnings, _category, _IGNORED, _pattern, _module, _reason
