"""The official STaRK processed files (as the ``stark_qa`` package writes them) -> SKB.

Layout (``stark_qa.tools.io.save_files``): a directory holding

- ``node_info.pkl``: ``{node_index: {field: value}}`` (a pickled dict);
- ``edge_index.pt``: LongTensor ``[2, E]`` (source row, target row);
- ``edge_types.pt``: LongTensor ``[E]``; ``node_types.pt``: tensor ``[N]``;
- ``edge_type_dict.pkl`` / ``node_type_dict.pkl``: ``{code: name}`` (optional: MAG
  leaves them out, and Amazon's base ``processed/`` has no node types; the dataset's
  built-in dicts are used then).

``SOURCE`` may be that directory, the dataset root holding ``processed/``, or Amazon's
``processed/cache/<link types>/``. Tensors are read with ``torch.load(weights_only=True)``;
pickles only with ``trust_pickles=True`` (CLI: ``--trust-pickles``), since unpickling runs
code from the file. Node ids are the STaRK node indices as strings (``"0"``, ``"1"``,
...), matching the ``answer_ids`` of the STaRK query sets.

Node fields: the name is the first present of :data:`NAME_KEYS`; reserved keys ``id``
and ``type`` become ``orig_id``/``orig_type``; missing values (None, NaN, ``""``, and
``-1``, which STaRK's MAG processing writes for unknown values) are dropped; lists and
dicts are flattened to text (reviews and Q&A keep their text keys); a column whose
values are all numbers or all bools is an attribute, any other column is a text field.
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from skbsearch.core.errors import InputError, MissingDependencyError, UntrustedFileError
from skbsearch.kb.store import SKB

#: Keys tried in order for a node's name.
NAME_KEYS = ("title", "name", "DisplayName", "brand_name", "category_name", "color_name")

#: Built-in (node_type_dict, edge_type_dict) per dataset, for processed dirs that lack them.
DEFAULT_TYPE_DICTS: dict[str, tuple[dict[int, str], dict[int, str]]] = {
    "amazon": ({0: "product"}, {0: "also_buy", 1: "also_view"}),
    "mag": (
        {0: "author", 1: "institution", 2: "field_of_study", 3: "paper"},
        {
            0: "author___affiliated_with___institution",
            1: "paper___cites___paper",
            2: "paper___has_topic___field_of_study",
            3: "author___writes___paper",
        },
    ),
    "prime": (
        dict(enumerate([
            "disease", "gene/protein", "molecular_function", "drug", "pathway", "anatomy",
            "effect/phenotype", "biological_process", "cellular_component", "exposure",
        ])),
        dict(enumerate([
            "ppi", "carrier", "enzyme", "target", "transporter", "contraindication",
            "indication", "off-label use", "synergistic interaction", "associated with",
            "parent-child", "phenotype absent", "phenotype present", "side effect",
            "interacts with", "linked to", "expression present", "expression absent",
        ])),
    ),
}

#: For list-of-record fields, the keys kept as text (Amazon reviews and Q&A).
RECORD_TEXT_KEYS = {"review": ("summary", "reviewText"), "qa": ("question", "answer")}


def find_processed_dir(source: str | Path) -> Path:
    """The directory holding ``node_info.pkl`` under ``source`` (see the module docstring)."""
    src = Path(source)
    cands = [src, src / "processed"]
    for base in (src, src / "processed"):
        cache = base / "cache"
        if cache.is_dir():
            subs = sorted(p for p in cache.iterdir() if p.is_dir())
            subs.sort(key=lambda p: p.name != "brand-category-color")
            cands[1:1] = subs
    for c in cands:
        if (c / "node_info.pkl").is_file():
            return c
    raise InputError(
        "no STaRK processed files found (node_info.pkl, edge_index.pt, ...); give the "
        "'processed' directory that stark_qa writes, or the dataset root holding it",
        file=src,
    )


def _guess_dataset(path: Path, n_node_types: int | None) -> str | None:
    for part in reversed(path.absolute().parts):
        low = part.lower()
        if low in ("amazon", "mag"):
            return low
        if low.startswith("prime"):
            return "prime"
    return {1: "amazon", 4: "mag", 10: "prime"}.get(n_node_types or -1)


def _load_tensor(path: Path, torch: Any, ndim: int) -> np.ndarray:
    try:
        t = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - torch raises many kinds for bad files
        raise InputError(f"cannot read as a tensor file ({type(e).__name__}: {e})", file=path) from None
    if not isinstance(t, torch.Tensor):
        raise InputError(f"expected a tensor, found {type(t).__name__}", file=path)
    arr = t.detach().cpu().numpy()
    if arr.ndim != ndim:
        raise InputError(f"expected a {ndim}-d tensor, got shape {tuple(arr.shape)}", file=path)
    if arr.dtype.kind == "f":
        if not np.all(np.equal(np.mod(arr, 1), 0)):
            raise InputError("expected integer codes, found fractions", file=path)
    return arr.astype(np.int64)


def _load_pickle(path: Path, *, trusted: bool) -> Any:
    """Unpickle ``path`` — only when the user passed the trust flag (unpickling runs code)."""
    if not trusted:
        raise UntrustedFileError(f"{path}: refusing to unpickle without trust_pickles=True (CLI: --trust-pickles)")
    try:
        with open(path, "rb") as fh:
            return pickle.load(fh)  # noqa: S301  # trust-checked: only with trust_pickles=True
    except ModuleNotFoundError as e:
        raise InputError(f"unpickling needs the Python package '{e.name}'; install it", file=path) from None
    except Exception as e:  # noqa: BLE001
        raise InputError(f"cannot unpickle ({type(e).__name__}: {e})", file=path) from None


def _type_dict(path: Path, default: dict[int, str] | None, what: str, *, trusted: bool) -> dict[int, str]:
    if path.is_file():
        d = _load_pickle(path, trusted=trusted)
        if not isinstance(d, Mapping):
            raise InputError(f"expected a dict {{code: {what} name}}", file=path)
        return {int(k): str(v) for k, v in d.items()}
    if default is None:
        raise InputError(
            f"{path.name} is missing and the dataset is unknown; pass dataset='amazon'|'mag'|'prime'",
            file=path,
        )
    return dict(default)


def is_missing(v: Any) -> bool:
    """None, NaN, empty strings/containers, and STaRK's ``-1`` unknown marker."""
    if v is None:
        return True
    if isinstance(v, float) and math.isnan(v):
        return True
    if isinstance(v, str):
        return v.strip() in ("", "nan", "-1")
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v == -1
    if isinstance(v, (list, tuple, dict)):
        return len(v) == 0
    return False


def _scalar(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    return v


def flatten(v: Any, key: str | None = None, nested: bool = False) -> str:
    """Text for a (possibly nested) value: lists one item a line, dicts ``k: v``."""
    v = _scalar(v)
    if isinstance(v, Mapping):
        keep = RECORD_TEXT_KEYS.get(key or "")
        items = [(k, x) for k, x in v.items() if not is_missing(_scalar(x)) and not str(k).startswith("_")]
        if keep:
            items = [(k, x) for k, x in items if k in keep]
        parts = [f"{k}: {flatten(x, str(k), True)}" for k, x in items]
        return "; ".join(parts) if nested or keep else "\n".join(parts)
    if isinstance(v, (list, tuple)):
        parts = [flatten(x, key, True) for x in v if not is_missing(_scalar(x))]
        return ", ".join(parts) if nested else "\n".join(p for p in parts if p)
    return str(v)


def _columns(node_info: Mapping[Any, Any], n: int, file: Path) -> tuple[list[str], dict[str, dict[int, Any]]]:
    names = [""] * n
    cols: dict[str, dict[int, Any]] = {}
    for key, info in node_info.items():
        try:
            i = int(key)
        except (TypeError, ValueError):
            raise InputError(f"node key {key!r} is not an integer index", file=file, field="node_info") from None
        if not 0 <= i < n:
            raise InputError(f"node index {i} out of range 0..{n - 1}", file=file, line=i + 1, field="node_info")
        if not isinstance(info, Mapping):
            raise InputError(f"node {i}: expected a dict of fields", file=file, line=i + 1, field="node_info")
        name_key = next((k for k in NAME_KEYS if k in info and not is_missing(_scalar(info[k]))), None)
        if name_key is not None:
            names[i] = flatten(info[name_key], name_key)
        for k, v in info.items():
            k = str(k)
            v = _scalar(v)
            if k == name_key or is_missing(v):
                continue
            if k in ("id", "type", "name"):
                k = f"orig_{k}"
            cols.setdefault(k, {})[i] = v
    if len(node_info) != n:
        missing = next((i for i in range(n) if i not in node_info), n)
        raise InputError(
            f"node_info has {len(node_info)} nodes but node_types has {n}; node {missing} is missing",
            file=file,
            line=missing + 1,
            field="node_info",
        )
    return names, cols


def _split_columns(cols: dict[str, dict[int, Any]], n: int) -> tuple[dict[str, list], dict[str, list]]:
    fields: dict[str, list] = {}
    attrs: dict[str, list] = {}
    for k, d in cols.items():
        vals = list(d.values())
        if all(isinstance(x, bool) for x in vals):
            attrs[k] = [d.get(i) for i in range(n)]
        elif all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in vals):
            is_int = all(isinstance(x, int) for x in vals)
            attrs[k] = [d.get(i) if is_int or i not in d else float(d[i]) for i in range(n)]
        else:
            fields[k] = [flatten(d[i], k) if i in d else None for i in range(n)]
    return fields, attrs


def load_stark(
    source: str | Path,
    *,
    trust_pickles: bool = False,
    dataset: str | None = None,
) -> SKB:
    """Load a STaRK processed directory (Amazon, MAG or Prime) into an SKB.

    Args:
        source: the processed directory, or a dataset root holding ``processed/``.
        trust_pickles: allow unpickling ``node_info.pkl`` and the type dicts.
        dataset: ``"amazon"``, ``"mag"`` or ``"prime"`` (guessed from the path or the
            number of node types when not given; used only for missing type dicts).

    Raises:
        UntrustedFileError: without ``trust_pickles``.
        InputError: naming the file and record for malformed or inconsistent files.
    """
    d = find_processed_dir(source)
    if not trust_pickles:
        raise UntrustedFileError(
            f"{d / 'node_info.pkl'} is a Python pickle, and unpickling runs code from the file. "
            "Load it only if you trust its source (e.g. the official STaRK download): pass "
            "trust_pickles=True (CLI: --trust-pickles)."
        )
    if dataset is not None and dataset not in DEFAULT_TYPE_DICTS:
        raise InputError(f"unknown dataset {dataset!r}; use one of {sorted(DEFAULT_TYPE_DICTS)}", field="dataset")
    try:
        import torch
    except ImportError:
        raise MissingDependencyError("torch", "dense", "Reading STaRK .pt files") from None
    edge_index, edge_types = _read_edges(d, torch)
    node_info = _load_pickle(d / "node_info.pkl", trusted=trust_pickles)
    if not isinstance(node_info, Mapping):
        raise InputError(f"expected a dict {{index: fields}}, found {type(node_info).__name__}", file=d / "node_info.pkl")
    node_types, ds = _read_node_types(d, torch, len(node_info), dataset)
    defaults = DEFAULT_TYPE_DICTS.get(ds or "", (None, None))
    node_type_dict = _type_dict(d / "node_type_dict.pkl", defaults[0], "node type", trusted=trust_pickles)
    edge_type_dict = _type_dict(d / "edge_type_dict.pkl", defaults[1], "edge type", trusted=trust_pickles)
    n = len(node_types)
    _check_codes(d, node_types, node_type_dict, edge_types, edge_type_dict)
    _check_endpoints(d, edge_index, n)
    names, cols = _columns(node_info, n, d / "node_info.pkl")
    fields, attrs = _split_columns(cols, n)
    type_codes = sorted(node_type_dict)
    type_lookup = np.array([node_type_dict[c] for c in type_codes], dtype=object)
    types = type_lookup[np.searchsorted(type_codes, node_types)].tolist()
    rel_codes = sorted(edge_type_dict)
    rel_idx = np.searchsorted(rel_codes, edge_types)
    meta = {"source": {"format": "stark", "path": str(d), "dataset": ds}}
    return SKB.from_columns(
        [str(i) for i in range(n)],
        types,
        names,
        fields=fields,
        attributes=attrs,
        edges=(edge_index[0], rel_idx, edge_index[1]),
        relations=[edge_type_dict[c] for c in rel_codes],
        meta=meta,
    )


def _read_edges(d: Path, torch: Any) -> tuple[np.ndarray, np.ndarray]:
    """``edge_index.pt`` (``[2, E]``) and ``edge_types.pt`` (``[E]``), checked to agree."""
    for name in ("edge_index.pt", "edge_types.pt"):
        if not (d / name).is_file():
            raise InputError(f"missing {name} beside node_info.pkl", file=d / name)
    edge_index = _load_tensor(d / "edge_index.pt", torch, 2)
    edge_types = _load_tensor(d / "edge_types.pt", torch, 1)
    if edge_index.shape[0] != 2 or edge_index.shape[1] != len(edge_types):
        raise InputError(
            f"edge_index has shape {tuple(edge_index.shape)}; expected (2, {len(edge_types)}) "
            "to match edge_types.pt",
            file=d / "edge_index.pt",
        )
    return edge_index, edge_types


def _read_node_types(d: Path, torch: Any, n_info: int, dataset: str | None) -> tuple[np.ndarray, str | None]:
    """The node type codes (all 0 for Amazon's base files, which lack them) and the dataset name."""
    nt_file = d / "node_types.pt"
    node_types = _load_tensor(nt_file, torch, 1) if nt_file.is_file() else None
    n_types = len(np.unique(node_types)) if node_types is not None else None
    ds = dataset or _guess_dataset(d, n_types)
    if node_types is None:
        if ds != "amazon":
            raise InputError(
                "node_types.pt is missing; only Amazon's base files may omit it (pass dataset='amazon')",
                file=nt_file,
            )
        node_types = np.zeros(n_info, np.int64)
    return node_types, ds


def _check_codes(d: Path, node_types: np.ndarray, node_type_dict: Mapping[Any, str],
                 edge_types: np.ndarray, edge_type_dict: Mapping[Any, str]) -> None:
    """Every node and edge type code must be named in its type dict."""
    for what, codes, names in (("node", node_types, node_type_dict), ("edge", edge_types, edge_type_dict)):
        bad = np.flatnonzero(~np.isin(codes, list(names)))
        if len(bad):
            raise InputError(
                f"{what} {bad[0]} has type code {codes[bad[0]]}, not in {what}_type_dict {names}",
                file=d / f"{what}_types.pt",
                line=int(bad[0]) + 1,
                field=f"{what}_types",
            )


def _check_endpoints(d: Path, edge_index: np.ndarray, n: int) -> None:
    """Every edge must join two of the ``n`` nodes."""
    if edge_index.size:
        bad = np.flatnonzero((edge_index < 0).any(0) | (edge_index >= n).any(0))
        if len(bad):
            raise InputError(
                f"edge {bad[0]} ({edge_index[0, bad[0]]} -> {edge_index[1, bad[0]]}) points outside "
                f"the {n} nodes",
                file=d / "edge_index.pt",
                line=int(bad[0]) + 1,
                field="edge_index",
            )
