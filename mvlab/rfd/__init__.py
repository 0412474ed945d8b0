"""Random-forest dissimilarity for multi-view data (Bernard, Cao, Sabourin & Heutte 2020): view forests,
static view weights, dynamic view selection and its explanations (docs/algorithms.md §A.6-A.8)."""
