"""Text encoders (sentence-transformers and model2vec, lazily imported) and the on-disk embedding
cache."""

from skbsearch.encoders.base import Encoder
from skbsearch.encoders.cache import (
    CachedEncoder,
    EmbeddingCache,
    default_cache_dir,
    encode_texts,
    text_key,
)
from skbsearch.encoders.registry import (
    DEFAULT_ENCODER,
    SentenceTransformerEncoder,
    available_encoders,
    load_encoder,
    register_encoder,
)

__all__ = [
    "DEFAULT_ENCODER",
    "CachedEncoder",
    "EmbeddingCache",
    "Encoder",
    "SentenceTransformerEncoder",
    "available_encoders",
    "default_cache_dir",
    "encode_texts",
    "load_encoder",
    "register_encoder",
    "text_key",
]
