"""On-disk cache of (model, messages, parameters) -> response text, in SQLite (no pickle)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any


def cache_key(model: str, messages: list[dict[str, str]], params: dict[str, Any]) -> str:
    """A stable hash of everything that determines a deterministic response."""
    blob = json.dumps({"m": model, "msg": messages, "p": params}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


class ResponseCache:
    """A thread-safe SQLite key-value store for LLM responses.

    Args:
        path: the SQLite file (created with its parent directory), or ``":memory:"``.
    """

    def __init__(self, path: str | Path = ":memory:") -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.path = str(path)
        self._lock = threading.Lock()
        self._con = sqlite3.connect(self.path, check_same_thread=False)
        self._con.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT)")
        self._con.commit()
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> str | None:
        """The cached response, or None."""
        with self._lock:
            row = self._con.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return row[0]

    def put(self, key: str, value: str) -> None:
        """Store a response."""
        with self._lock:
            self._con.execute("INSERT OR REPLACE INTO responses VALUES (?, ?)", (key, value))
            self._con.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._con.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._con.close()
