"""Random-forest dissimilarities of one view (ALGORITHMS.md §A.2-A.5): Breiman, path length, RFD/kDN,
out-of-bag and RF-GAP, each a row of the measure table, computed as sparse leaf products."""
