"""IPython start-up file for the kernels the site build starts: the kernel records the versions it runs with.

docsite/sphinxext/exec_stamp.py copies it into the build's IPython start-up folder. It adds the installed
PyTensor and JAX versions, read here, inside the kernel (``importlib.metadata``, the distributions on the kernel's
own ``sys.path``; nothing is imported, so a page still configures and imports PyTensor itself), to the kernel's
``language_info``, next to the Python version ipykernel already puts there (``sys.version``, ipykernel/ipkernel.py,
``language_info``). The kernel sends ``language_info`` in its ``kernel_info`` reply; nbclient copies it into the
executed notebook's metadata (nbclient/client.py: ``self.nb.metadata["language_info"] = ...``), and myst-nb keeps
it in the build environment (myst_nb/sphinx_.py, ``render_nb_initialise``), where the footer stamp reads it.

A notebook run alone (Jupyter, Binder, ``make nb``) does not need this file.
"""


def _record_versions():
    from importlib.metadata import version

    kernel = getattr(get_ipython(), "kernel", None)  # noqa: F821 (IPython puts get_ipython in the namespace)
    if kernel is None:  # a terminal IPython, not a kernel
        return
    info = dict(kernel.language_info)  # a class attribute in ipykernel: copy it, set it on this kernel only
    info["docsite_versions"] = {"PyTensor": version("pytensor"), "JAX": version("jax")}
    kernel.language_info = info


_record_versions()
del _record_versions
