"""MetaQA (Zhang et al., 2018) over the WikiMovies KB: adapter and protocol.

Folder layout (as distributed, plus our split files)::

    DIR/kb.tsv                       head<TAB>relation<TAB>tail
    DIR/{1,2,3}-hop/qa_{split}.txt   question<TAB>answer1|answer2|...  ([topic] marked)
    DIR/{1,2,3}-hop/qa_{split}_qtype.txt   e.g. actor_to_movie_to_director (optional)

Protocol (:func:`run_metaqa`): a pipeline spec (default: the ``graph`` stage) runs on the
MetaQA SKB, its trainable stages fitted on dev questions and their answer nodes (no
question-type labels; :mod:`.spec`). ``split="dev"``: a deterministic half of dev (by a
hash of the question text) trains, the other half is scored; ``split="test"``: all of dev
trains and ``qa_test.txt`` is scored. Reported per hop: Hits@1 (the top answer's name is a
gold answer), Hit@1/Hit@5/Recall@20/MRR over answer nodes, the ceiling (share of questions
with a gold answer reachable in the KB: by the gold path when the qtype is known, else
within h hops) and per-question latency.

Modules: :mod:`.protocol` (reading, gold answers, scoring; shared), :mod:`.run` (the
protocol), :mod:`.spec` (fitting a spec on the training questions); for the triple
re-ranker experiment and the miss analysis only, :mod:`.paths` (a relation-path retriever
trained on the question types), :mod:`.rerank` and :mod:`.misses`.
"""

from skbsearch.benchmarks.metaqa.protocol import (
    HOPS,
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
    train_metaqa_reranker,
)
from skbsearch.benchmarks.metaqa.run import run_metaqa

__all__ = [
    "HOPS",
    "MetaQAComponents",
    "MetaQAQuestion",
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
    "run_metaqa",
    "run_pipeline",
    "score_hop",
    "topic_nodes",
    "train_metaqa_reranker",
    "train_path_model",
]
