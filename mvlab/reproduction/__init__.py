"""The papers' own tables, cell by cell: the protocols that run them (:mod:`mvlab.reproduction.sdf_paper`,
:mod:`mvlab.reproduction.ofsp_paper`), the draws files and their t intervals (:mod:`mvlab.reproduction.cells`),
and the cells files and docs/reproduction.md's generated sections written from them
(:mod:`mvlab.reproduction.writer`)."""
