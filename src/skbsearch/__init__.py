"""skbsearch: retrieval and re-ranking over semi-structured knowledge bases (SKBs).

The core (this package without extras) needs only numpy, scipy, pyarrow, duckdb,
typer, rich and bm25s. Heavy components (dense encoders, GNNs, LLM clients, the HTTP
server) live behind extras and are imported lazily.
"""

from skbsearch.errors import IndexError_, InputError, SkbError
from skbsearch.types import Qrels, Query, Run

__version__ = "0.1.0"
__all__ = ["SkbError", "InputError", "IndexError_", "Query", "Run", "Qrels", "__version__"]
