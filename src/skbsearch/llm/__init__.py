"""One LLM client interface for OpenAI-compatible servers and local llama.cpp models."""

from skbsearch.llm.cache import ResponseCache
from skbsearch.llm.client import LlamaCppClient, LLMClient, OpenAICompatibleClient, get_client

__all__ = ["LLMClient", "OpenAICompatibleClient", "LlamaCppClient", "ResponseCache", "get_client"]
