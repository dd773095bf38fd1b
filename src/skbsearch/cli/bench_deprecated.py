"""Old ``skb bench`` flags and names, kept for one release: each prints the flags to use.

The benchmarks take ``--pipeline SPEC`` only. The old ways of naming a pipeline still run,
with a warning that prints the exact spec they stand for (the same run):

- ``skb bench trecdl --reranker NAME`` (``none``, ``bi-encoder``, ``cross-encoder``,
  ``llm``, ``mlp``, ``gcn``, ``gnn`` = ``gnn-row(row='grag')``, ``gnn-rl``,
  ``fusion:A+B``, ``run:FILE``) with ``--model``, ``--cv-*`` (but ``--cv-folds``),
  ``--gnn-*``, ``--fusion``, ``--batch-size``, ``--threads``, ``--train-data``,
  ``--save-models``; ``--year`` (now ``--split``).
- ``skb bench impliret --pipeline NAME`` with ``hybrid``, ``bm25+enrich``,
  ``constraints-only`` or ``bm25>NAME`` / ``bm25>fusion:A+B``, and ``--gnn-*``, ``--ce-*``,
  ``--threads``; ``--folds`` (now ``--cv-folds``), ``--limit-per-pool`` (now ``--limit``).

The commands accept unknown options (``context_settings=OLD_FLAGS_CONTEXT``) and hand them
here; anything that is not an old flag is refused as click would. Delete this module, the
two calls and the context settings in the release after.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text

from skbsearch.cli.output import err_console
from skbsearch.core.errors import InputError
from skbsearch.core.outfile import check_output_dir

#: ``context_settings`` of a command with old flags: unknown options reach ``ctx.args``.
OLD_FLAGS_CONTEXT = {"allow_extra_args": True, "ignore_unknown_options": True}

#: Old re-ranker name -> (registered stage, fixed parameters); ``none``/``bm25``: the input run.
OLD_RERANKERS: dict[str, tuple[str, dict[str, Any]]] = {
    "none": ("input", {}),
    "bm25": ("input", {}),
    "bi-encoder": ("dense", {}),
    "cross-encoder": ("cross-encoder-ft", {}),
    "llm": ("llm", {"kind": "passage"}),
    "mlp": ("gnn-row", {"row": "mlp"}),
    "gcn": ("gnn-row", {"row": "gcn"}),
    "gnn": ("gnn-row", {"row": "grag"}),
    "grag": ("gnn-row", {"row": "grag"}),
    "gnn-rl": ("gnn-row", {"row": "grag-rl"}),
    "grag-rl": ("gnn-row", {"row": "grag-rl"}),
}
#: TREC DL without --cv-folds: a cross-encoder scores with the given model.
_SCORED = {**OLD_RERANKERS, "cross-encoder": ("cross-encoder", {})}
#: ``--fusion`` of ``fusion:A+B``: RRF (k = 60) or the min-max normalised weighted sum.
FUSIONS = {"rrf": "rrf", "wsum": "minmax"}
#: IMPLIRET's old retrieval names -> specs (``enrich`` stages get the gazetteer later).
OLD_RETRIEVERS = {"hybrid": "rrf(bm25, dense)", "bm25+enrich": "enrich(mode='text')",
                  "constraints-only": "enrich(mode='constraints')"}
#: IMPLIRET's settings of the trained re-rankers of the old ``bm25>NAME`` rows.
IMPLIRET_RERANK: dict[str, dict[str, Any]] = {
    "gnn-row": {"per_text": True, "only_positive": True},
    "cross-encoder-ft": {"steps": 80, "lr": 1e-4, "max_length": 256, "negatives": "run"},
}


def _floats(text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in text.split(",") if x.strip())


@dataclass(frozen=True)
class Old:
    """An old flag: where its value goes, and how it is read (``None``: a switch)."""

    dest: str
    read: Callable[[str], Any] | None = str
    const: Any = None
    many: bool = False


_GNN = {"--gnn-paths": Old("gnn.use_paths", None, True),
        "--gnn-no-paths": Old("gnn.use_paths", None, False),
        "--gnn-min-common": Old("gnn.min_common", int),
        "--gnn-first-stage": Old("gnn.first_stage", float),
        "--gnn-select-first-stage": Old("gnn.select_first_stage", _floats),
        "--gnn-epochs": Old("gnn.epochs", int), "--gnn-lr": Old("gnn.lr", float),
        "--gnn-seed": Old("gnn.seed", int)}
TRECDL_OLD: dict[str, Old] = {
    **_GNN, "--gnn-hidden": Old("gnn.hidden", int),
    "--reranker": Old("reranker"), "--model": Old("model"), "--fusion": Old("fusion"),
    "--batch-size": Old("batch_size", int), "--threads": Old("ce.threads", int),
    "--cv-steps": Old("ce.steps", int), "--cv-time-budget": Old("ce.time_budget", float),
    "--cv-epochs": Old("ce.epochs", int), "--cv-lr": Old("ce.lr", float),
    "--train-data": Old("ce.train_data", many=True),
    "--save-models": Old("save_dir", lambda v: str(Path(v))),
    "--year": Old("split"),
}
IMPLIRET_OLD: dict[str, Old] = {
    **_GNN, "--gnn-patience": Old("gnn.patience", int),
    "--ce-start": Old("ce.start"), "--ce-steps": Old("ce.steps", int),
    "--ce-lr": Old("ce.lr", float), "--ce-max-length": Old("ce.max_length", int),
    "--ce-time-budget": Old("ce.time_budget", float), "--threads": Old("ce.threads", int),
    "--folds": Old("cv_folds", int), "--limit-per-pool": Old("limit", int),
}
#: Renamed flags: old destination -> the new flag.
RENAMED = {"split": "--split", "cv_folds": "--cv-folds", "limit": "--limit"}


def parse_old(args: Sequence[str], table: dict[str, Old]) -> tuple[dict[str, Any], list[str]]:
    """The old flags among a command's extra arguments: ``({dest: value}, their tokens)``.

    Raises:
        InputError: for a token that is no old flag (as click's "no such option"), a
            missing value or one that does not read as the flag's type.
    """
    out: dict[str, Any] = {}
    tokens = list(args)
    i = 0
    while i < len(tokens):
        name, eq, value = tokens[i].partition("=")
        old = table.get(name)
        if old is None:
            what = "no such option" if name.startswith("-") else "unexpected argument"
            raise InputError(f"{what}: {tokens[i]}; see --help", field=name)
        if old.read is None:
            got = old.const
        else:
            if not eq:
                i += 1
                if i >= len(tokens):
                    raise InputError(f"{name} needs a value", field=name)
                value = tokens[i]
            try:
                got = old.read(value)
            except ValueError:
                raise InputError(f"{name}: cannot read {value!r}", field=name) from None
        if old.many:
            out.setdefault(old.dest, []).append(got)
        else:
            out[old.dest] = got
        i += 1
    return out, tokens


def _group(old: dict[str, Any], prefix: str) -> dict[str, Any]:
    return {k.split(".", 1)[1]: v for k, v in old.items() if k.startswith(prefix + ".")}


def _quote(spec: str) -> str:
    """A spec as one shell word, in double quotes where that is safe."""
    return f'"{spec}"' if not any(c in spec for c in '"$`\\!') else shlex.quote(spec)


def warn(old_tokens: Sequence[str], new_tokens: Sequence[str]) -> None:
    """Print the deprecation warning: the old flags and the exact flags of the same run."""
    err_console.print(Text.assemble(
        ("warning:", "bold yellow"), f" {' '.join(old_tokens)}: deprecated, removed in the "
        f"next release; the same run is: {' '.join(new_tokens)}"), highlight=False,
        soft_wrap=True)


def renamed(old: dict[str, Any], given: dict[str, bool]) -> list[str]:
    """The new flags of renamed old ones (``--year`` -> ``--split``...); refuses both."""
    out = []
    for dest, flag in RENAMED.items():
        if dest in old:
            if given.get(dest):
                raise InputError(f"give {flag} only (its old name is deprecated)", field=flag)
            out += [flag, str(old[dest])]
    return out


# ----------------------------------------------------------------------------- TREC DL
def old_stage(name: str, params: dict[str, Any], table: dict[str, tuple[str, dict[str, Any]]]) -> Any:
    """The stage an old re-ranker name stood for, with ``params`` (``None`` values and the
    stage's unknown parameters dropped); ``run:FILE`` is the ``run`` stage."""
    from skbsearch.stages import get_stage, stage

    if name.startswith("run:"):
        return stage("run", path=name[4:])
    if name not in table:
        raise InputError(f"unknown re-ranker {name!r}; use one of {', '.join(table)}, "
                         "fusion:<a>+<b> or run:FILE, or give --pipeline SPEC", field="reranker")
    base, fixed = table[name]
    cls = get_stage(base)
    known = {f.name for f in cls.param_fields()}
    extra = {k: v for k, v in params.items() if v is not None and k in known}
    return cls(None, **{**fixed, **extra})


def old_spec(name: str, params_of: Callable[[str], dict[str, Any]], fusion: str = "rrf",
             table: dict[str, tuple[str, dict[str, Any]]] = OLD_RERANKERS) -> str:
    """The spec of an old re-ranker name, ``fusion:A+B`` included."""
    from skbsearch.stages import get_stage

    if not name.startswith("fusion:"):
        return repr(old_stage(name, params_of(name), table))
    parts = [p.strip() for p in name[len("fusion:"):].split("+") if p.strip()]
    if len(parts) < 2:
        raise InputError("write fusion:<a>+<b>, e.g. fusion:cross-encoder+bm25", field="reranker")
    if fusion not in FUSIONS:
        raise InputError(f"unknown fusion {fusion!r}; use one of {', '.join(FUSIONS)}",
                         field="fusion")
    kids = [old_stage(p, params_of(p), table) for p in parts]
    return repr(get_stage(FUSIONS[fusion]).from_children(kids))


def trecdl_spec(old: dict[str, Any], *, cv_folds: int | None, top_k: int) -> str:
    """The spec ``skb bench trecdl --reranker NAME`` and its option flags ran."""
    reranker, model = old.get("reranker", "none"), old.get("model")
    fused = reranker.startswith("fusion:")
    save = {"save_dir": old.get("save_dir")}
    ce = {"epochs": 1, "lr": 5e-5, **_group(old, "ce"), **save}
    ce["train_data"] = tuple(ce.get("train_data") or ()) or None
    gnn = {**_group(old, "gnn"), **save}

    def params(part: str) -> dict[str, Any]:
        if part == "cross-encoder":
            if cv_folds:
                return {"start": model, "top_k": top_k,
                        "score_batch_size": old.get("batch_size", 32), **ce}
            if model is None:
                raise InputError("--reranker cross-encoder needs --model DIR (a trained model, "
                                 "e.g. from 'skb train cross-encoder') or --cv-folds K",
                                 field="model")
            return {"model": model, "top_k": top_k, "batch_size": old.get("batch_size", 32)}
        if OLD_RERANKERS.get(part, ("",))[0] == "gnn-row":
            if not cv_folds and model is None:
                raise InputError(f"--reranker {part} needs --cv-folds K (train per fold) or "
                                 "--model DIR (from 'skb train gnn-reranker')", field="model")
            return {**gnn, "model": None if cv_folds else model}
        if part == "llm":
            return {"top_k": top_k} if fused and model is not None else {"model": model, "top_k": top_k}
        if part == "bi-encoder":
            if model is not None and not fused:  # in a fusion --model is the other member's
                raise InputError("bi-encoder re-scores with the corpus's dense index (MiniLM); "
                                 "drop --model", field="model")
            return {"k": top_k}
        return {}

    return old_spec(reranker, params, old.get("fusion", "rrf"),
                    OLD_RERANKERS if cv_folds else _SCORED)


def trecdl_flags(args: Sequence[str], pipelines: list[str] | None, *, cv_folds: int | None,
                 top_k: int, given: dict[str, bool]) -> tuple[list[str] | None, str | None]:
    """``(pipelines, split)`` after the old flags among ``args`` (warned about); ``split``
    is ``None`` unless ``--year`` gave it."""
    old, tokens = parse_old(args, TRECDL_OLD)
    if not old:
        return pipelines, None
    new = renamed(old, given)
    if set(old) - set(RENAMED):
        if pipelines and "reranker" in old:
            raise InputError("give --pipeline SPEC or --reranker NAME (its deprecated old form), "
                             "not both", field="--reranker")
        if pipelines:
            flag = next(t for t in tokens if t.split("=")[0] in TRECDL_OLD
                        and TRECDL_OLD[t.split("=")[0]].dest not in RENAMED)
            raise InputError(f"{flag} is an old flag; with --pipeline SPEC write its setting "
                             "as a stage parameter in the spec (see 'skb stages')", field=flag)
        if old.get("save_dir"):  # as the old option was checked: no input, no artefact
            check_output_dir(old["save_dir"], field="--save-models")
        pipelines = [trecdl_spec(old, cv_folds=cv_folds, top_k=top_k)]
        new = ["--pipeline", _quote(pipelines[0]), *new]
    warn(tokens, new)
    return pipelines, old.get("split")


# ----------------------------------------------------------------------------- IMPLIRET
def is_old_name(name: str) -> bool:
    """Whether ``name`` is an old IMPLIRET pipeline name rather than a spec."""
    return name in OLD_RETRIEVERS or (">" in name and ">>" not in name)


def impliret_spec(name: str, *, gnn: dict[str, Any] | None = None,
                  cross_encoder: dict[str, Any] | None = None) -> str:
    """The spec of an old IMPLIRET pipeline name (before the gazetteer is filled in)."""
    if name in OLD_RETRIEVERS:
        return OLD_RETRIEVERS[name]
    first, _, rest = (p.strip() for p in name.partition(">"))
    if first != "bm25" or not rest:
        raise InputError(f"bad re-ranking pipeline {name!r}: write 'bm25>NAME' or "
                         "'bm25>fusion:A+B' (or a spec, e.g. 'bm25 >> gnn-row(grag-rl)')",
                         field="pipeline")
    options = {"gnn-row": gnn or {}, "cross-encoder-ft": cross_encoder or {}}

    def params(part: str) -> dict[str, Any]:
        stage = OLD_RERANKERS.get(part, ("",))[0]
        return {**IMPLIRET_RERANK.get(stage, {}), **options.get(stage, {})}

    return f"bm25 >> {old_spec(name=rest, params_of=params)}"


def impliret_flags(args: Sequence[str], pipelines: list[str] | None, *,
                   fill: Callable[[str], str], given: dict[str, bool]
                   ) -> tuple[list[str] | None, dict[str, Any]]:
    """``(pipelines, renamed values)`` after the old names in ``pipelines`` and the old
    flags among ``args`` (warned about); ``fill(spec)`` adds the benchmark's gazetteer."""
    old, tokens = parse_old(args, IMPLIRET_OLD)
    specs = list(pipelines or [])
    names = [p for p in specs if is_old_name(p)]
    if not old and not names:
        return pipelines, {}
    new = renamed(old, given)
    stage_flags = [t for t in tokens if t.split("=")[0] in IMPLIRET_OLD
                   and IMPLIRET_OLD[t.split("=")[0]].dest not in RENAMED]
    if stage_flags and not names:
        raise InputError(f"{stage_flags[0]} is an old flag; write its setting as a stage "
                         "parameter in the spec (see 'skb stages')", field=stage_flags[0])
    gnn, ce = _group(old, "gnn"), _group(old, "ce")
    out = [fill(impliret_spec(p, gnn=gnn, cross_encoder=ce)) if is_old_name(p) else p
           for p in specs]
    if names:
        new = [w for p in out for w in ("--pipeline", _quote(p))] + new
    warn([w for p in names for w in ("--pipeline", _quote(p))] + tokens, new)
    return (out or pipelines), {k: v for k, v in old.items() if k in RENAMED}
