"""The LLM response cache: stable keys, SQLite on disk across instances, hit counts."""

from __future__ import annotations

import threading
from pathlib import Path

from skbsearch.llm.cache import ResponseCache, cache_key

MSG = [{"role": "user", "content": "Is the Eiffel Tower in Paris?"}]


def test_the_key_depends_on_model_messages_and_params_not_their_order() -> None:
    k = cache_key("smollm2", MSG, {"temperature": 0.0, "max_tokens": 8})
    assert k == cache_key("smollm2", MSG, {"max_tokens": 8, "temperature": 0.0})
    assert len(k) == 64 and int(k, 16) >= 0
    assert k != cache_key("other", MSG, {"temperature": 0.0, "max_tokens": 8})
    assert k != cache_key("smollm2", MSG, {"temperature": 0.0, "max_tokens": 9})
    assert k != cache_key("smollm2", [{"role": "user", "content": "Is it in Lyon?"}],
                          {"temperature": 0.0, "max_tokens": 8})


def test_responses_persist_in_the_file_and_count_hits(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "llm.sqlite"  # the parent directory is created
    cache = ResponseCache(path)
    assert cache.get("k") is None and (cache.hits, cache.misses) == (0, 1)
    cache.put("k", "Yes.")
    cache.put("k", "Yes, in Paris.")  # replaced, not duplicated
    assert cache.get("k") == "Yes, in Paris." and cache.hits == 1 and len(cache) == 1
    cache.close()
    again = ResponseCache(path)
    assert again.get("k") == "Yes, in Paris." and len(again) == 1
    again.close()


def test_threads_share_one_cache() -> None:
    cache = ResponseCache()  # in memory

    def work(i: int) -> None:
        for j in range(50):
            cache.put(f"{i}-{j}", str(j))
            assert cache.get(f"{i}-{j}") == str(j)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(cache) == 200 and cache.hits == 200
