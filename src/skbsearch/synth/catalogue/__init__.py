"""STaRK-style synthetic product catalogues: the generator (``generate``), its vocabulary
(``vocab``), product text (``text``) and the queries with their answers (``queries``).

The generator's names import from here (``skbsearch.synth.catalogue``), as before the package.
"""

from skbsearch.synth.catalogue.generate import (  # noqa: F401 - the package's front
    GENERATOR,
    RELATIONS,
    CatalogueDataset,
    generate_catalogue,
)
