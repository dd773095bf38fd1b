"""L0: the core types, the stage protocol and operators, errors, atomic writes and the
small helpers every layer uses."""

# ``run_a + run_b`` is the fusion of :mod:`skbsearch.core.fusion`, which registers itself on
# the Run type when imported: importing it here makes that true whatever core module is used.
from skbsearch.core import fusion as _fusion  # noqa: F401
