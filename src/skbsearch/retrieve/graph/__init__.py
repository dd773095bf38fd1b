"""The graph stage's retriever: linking, metapaths, the fitted model, fitting and scoring."""
