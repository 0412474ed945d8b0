"""mvlab: a laboratory for multi-view learning with random forests.

Modules (import them explicitly; nothing heavy is imported here):

- :mod:`mvlab.datasets`  multi-view datasets, bundled data, synthetic generator, CSV upload
- :mod:`mvlab.plots`     plotly figure builders used by the dashboard
"""

__version__ = "0.1.0"
