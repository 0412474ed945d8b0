"""Random-forest dissimilarities of one view (docs/algorithms.md §A.2-A.5): Breiman, path length, RFD/kDN,
out-of-bag and RF-GAP, each a row of the measure table, computed as sparse leaf products."""
