"""The papers' own tables, cell by cell. Each *reading* of a paper, its own protocol as mvlab reads it
(:mod:`mvlab.reproduction.sdf_paper`, :mod:`mvlab.reproduction.ofsp_paper`) or a way of running it that its text
allows and that moves its numbers (:mod:`mvlab.reproduction.sdf_lambda`, :mod:`mvlab.reproduction.ofsp_leak`, ...),
is one :class:`~mvlab.reproduction.reading.Reading` record listed once in :mod:`mvlab.reproduction.registry`. Its
draws go to an append-only file and become cells with their intervals (:mod:`mvlab.reproduction.cells`), judged by
the rules of :mod:`mvlab.reproduction.verdicts`; :mod:`mvlab.reproduction.writer` renders docs/reproduction.md whole
from the draws files and the report's template. The protocols on the bundled data are in
:mod:`mvlab.reproduction.bundled_protocols`."""
