"""View construction (Kumar & Minz 2016): OFSP and five other partitioners, performance-weighted view
ensembles and diversity measures (docs/algorithms.md B)."""
