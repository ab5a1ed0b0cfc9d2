"""Claims the pages make about JAX, diffrax and Numba that no cell on the page shows, checked against the
installed packages. Each test names the sentence it backs; when a package changes, the test says which page to
update."""

import inspect

import jax
import jax.numpy as jnp
import pytest

jax.config.update("jax_enable_x64", True)


def test_jax_persistent_cache_is_looked_up_by_the_lowered_program():
    """notebooks/ode.md, "What running this page costs": a warm run still traces and lowers every program,
    because JAX's persistent cache is keyed on the lowered module (compile_or_get_cached takes the MLIR module
    and the key comes from it)."""
    from jax._src import compilation_cache, compiler

    assert list(inspect.signature(compiler.compile_or_get_cached).parameters)[1] == "computation"
    assert list(inspect.signature(compilation_cache.get_cache_key).parameters)[0] == "module"


def test_jax_export_cannot_serialise_a_diffrax_solve():
    """notebooks/ode.md, same section: jax.export cannot store diffrax's traced programs, because equinox's
    runtime checks lower to host callbacks."""
    diffrax = pytest.importorskip("diffrax")

    def solve(y0):
        return diffrax.diffeqsolve(diffrax.ODETerm(lambda t, y, args: -y), diffrax.Dopri5(), 0.0, 1.0, None, y0,
                                   saveat=diffrax.SaveAt(t1=True),
                                   stepsize_controller=diffrax.PIDController(rtol=1e-6, atol=1e-6)).ys

    with pytest.raises(NotImplementedError, match="host_callbacks"):
        jax.export.export(jax.jit(solve))(jax.ShapeDtypeStruct((2,), jnp.float64))

