"""STaRK-style queries over any SKB: the generator (``generate``), relation properties
(``properties``), templates (``templates``), text (``text``, ``llm``) and the report (``report``).

The generator's names import from here (``skbsearch.synth.queries``), as before the package.
"""

from skbsearch.synth.queries.generate import (  # noqa: F401 - the package's front
    HOP_WEIGHTS,
    Progress,
    SynthQueries,
    SynthQuery,
    synthesize_queries,
)
