"""Home: what mvlab is and what each page answers."""

import streamlit as st

from mvlab.ui import links
from mvlab.ui.state import sidebar

ds = sidebar()
links.publish()
st.title("mvlab: multi-view learning with random forests")
st.markdown(
    """
Many datasets describe each instance in several **views**: groups of features measured in
different ways (Fourier coefficients, pixels and moments of the same handwritten digit; genes and
lipids of the same mouse). mvlab implements three published random-forest methods for such data
and lets you look inside them:

| method | paper | idea |
|---|---|---|
| RF dissimilarity + dynamic view selection | Bernard, Cao, Sabourin & Heutte (2020), [arXiv:2007.08377](https://arxiv.org/abs/2007.08377) | one forest per view turns each view into a dissimilarity matrix; views are combined by averaging, by static weights, or by choosing, for every instance, the best subset of views |
| Optimal feature-set partitioning (OFSP) | Kumar & Minz (2016), Knowledge and Information Systems 49(1), [doi:10.1007/s10115-015-0875-y](https://doi.org/10.1007/s10115-015-0875-y) | build k views out of one high-dimensional feature set, then vote with a performance-weighted ensemble |
| Siamese deep forest | Utkin & Ryabinin (2018), Knowledge-Based Systems, [arXiv:1704.08715](https://arxiv.org/abs/1704.08715) | a cascade forest on pairs of instances whose trees are weighted by a quadratic programme to separate similar from dissimilar pairs |

**Start here.** Pick a dataset in the sidebar (a bundled real dataset, a synthetic one whose
ground truth says which views matter for each instance, or your own CSV), choose a random seed,
then open a page:

- **Data**: *what is in my data?* Views, scales, class balance, a PCA picture of every view, and,
  for synthetic data, which views carry each instance's class.
- **Dissimilarity**: *what does the forest think is similar?* One forest per view turns each view
  into a dissimilarity matrix (five measures); four combinations (average, kNN accuracy, kernel
  alignment, out-of-bag accuracy) weight the views, on the same forests and the same split.
- **View construction**: *how should features be grouped into views?* OFSP and five other methods
  build k = 1..10 views of one high-dimensional feature set for performance-weighted ensembles:
  box plots of accuracy, disagreement, time and % features kept, a Friedman aligned-ranks test
  with Holm against OFSP, and which feature went to which view, next to the natural views.
- **Dynamic view selection**: *which views did each instance use, and why?* A pool of forests, one
  per subset of views; each test instance gets the subset most accurate on its nearest training
  neighbours. See every instance's choice, its region of competence and every candidate's competence.
- **Benchmark**: *which method wins, and is it significant?* Repeated splits on several datasets,
  the same splits for every method, then average ranks, sign tests, Friedman with Holm and a
  critical-difference diagram; every
  run is kept and can be browsed and downloaded.
- **Papers**: *does mvlab reproduce each paper?* The papers' tables as published beside mvlab's
  cells (95 % intervals, draws, the reading of the paper used), each cell a link to the setting.
- **Siamese deep forest**: *how does a Siamese deep forest weight its trees?* SDF and gcForest
  on pairs of instances (the same first-level trees): accuracy per cascade level, the learned tree weights and
  their effective number of trees, and a pair explorer with the undetermined-pair threshold τ.

Every random choice derives from the sidebar's seed, so a result can be reproduced exactly.
"""  # noqa: E501 (a markdown table row is one line)
)
st.info(f"Dataset in use: **{ds.name}** ({ds.n_samples} instances, {ds.n_views} views, {ds.n_classes} classes).")
