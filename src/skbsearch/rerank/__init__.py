"""Re-rankers: stages that re-score the candidates of a Run.

Modules: ``gnn`` (G-RAG: document graphs and GNN scorers; extra ``[gnn]``), with
``docgraph`` and ``gnn_models``; other re-rankers (cross-encoder, LLM) live beside it.
Nothing heavy is imported here: import the submodule you need.
"""
