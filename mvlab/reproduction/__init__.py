"""The papers' own tables, cell by cell: the protocols that run them (:mod:`mvlab.reproduction.sdf_paper`,
:mod:`mvlab.reproduction.ofsp_paper`), the readings of the papers that move their numbers, run beside them as
diagnoses (:mod:`mvlab.reproduction.sdf_lambda`, :mod:`mvlab.reproduction.sdf_readings`,
:mod:`mvlab.reproduction.ofsp_leak`), the draws files and their t intervals (:mod:`mvlab.reproduction.cells`),
and the cells files and docs/reproduction.md's generated sections written from them
(:mod:`mvlab.reproduction.writer`)."""
