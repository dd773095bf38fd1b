"""IMPLIRET-style implicit-fact tuple sets: the generator (``generate``), tuples and scenarios
(``tuples``, ``bind``), lexicons and places (``lexicons``, ``places``), text (``text``, ``prompts``,
``llm``) and the verifier (``verify``).

The generator's names import from here (``skbsearch.synth.impliret``), as before the package.
"""

from skbsearch.synth.impliret.generate import (  # noqa: F401 - the package's front
    GENERATOR,
    VERIFIERS,
    ImpliretPool,
    generate_impliret,
    pool_name,
    write_pool,
)
