"""MetaQA (Zhang et al., 2018) over the WikiMovies KB: adapter and protocol.

Folder layout (as distributed, plus our split files)::

    DIR/kb.tsv                       head<TAB>relation<TAB>tail
    DIR/{1,2,3}-hop/qa_{split}.txt   question<TAB>answer1|answer2|...  ([topic] marked)
    DIR/{1,2,3}-hop/qa_{split}_qtype.txt   e.g. actor_to_movie_to_director (optional)

Protocol (:func:`run_metaqa`): the relation-path model is trained on dev questions and
their ``qtype`` labels. ``split="dev"``: a deterministic half of dev (by a hash of the
question text) trains, the other half is scored; ``split="test"``: all of dev trains and
``qa_test.txt`` is scored (no qtype file needed). Reported per hop: Hits@1 (the top
answer's name is a gold answer), Hit@1/Hit@5/Recall@20/MRR over answer nodes, the
ceiling (share of questions with a gold answer reachable in the KB: by the gold path when
the qtype is known, else within h hops) and per-question latency.

Modules: :mod:`.protocol` (reading, gold answers, scoring; shared), :mod:`.run` (the
protocol), :mod:`.rerank` (the retrieve -> contextual re-rank -> answer pipeline).
"""

from skbsearch.benchmarks.metaqa.protocol import (
    HOPS,
    PIPELINES,
    STAGE_METRICS,
    MetaQAQuestion,
    ambiguity_split,
    answer_nodes,
    cache_root,
    content_digest,
    hits_at_1,
    in_train_half,
    load_kb,
    make_text_stage,
    path_answers,
    reachable,
    read_questions,
    read_split,
    run_pipeline,
    score_hop,
    topic_nodes,
    train_path_model,
)
from skbsearch.benchmarks.metaqa.rerank import (
    MetaQAComponents,
    cached_reranker,
    rerank_stage,
    train_metaqa_reranker,
)
from skbsearch.benchmarks.metaqa.run import run_metaqa

__all__ = [
    "HOPS",
    "MetaQAComponents",
    "MetaQAQuestion",
    "PIPELINES",
    "STAGE_METRICS",
    "ambiguity_split",
    "answer_nodes",
    "cache_root",
    "cached_reranker",
    "content_digest",
    "hits_at_1",
    "in_train_half",
    "load_kb",
    "make_text_stage",
    "path_answers",
    "reachable",
    "read_questions",
    "read_split",
    "rerank_stage",
    "run_metaqa",
    "run_pipeline",
    "score_hop",
    "topic_nodes",
    "train_metaqa_reranker",
    "train_path_model",
]
