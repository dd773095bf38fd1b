"""Synthetic data: STaRK-style product catalogues (and other generators beside them)."""

from skbsearch.synth.catalogue import CatalogueDataset, generate_catalogue

__all__ = ["CatalogueDataset", "generate_catalogue"]
