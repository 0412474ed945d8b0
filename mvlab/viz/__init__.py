"""Pictures: plotly figure builders (pure functions, data in, ``go.Figure`` out) and 2-D projections.

Nothing here computes a model: callers pass numbers (counts, coordinates, matrices) and get a figure that
can be tested without a browser.  One module of figures per page (``data_figures``, ``dissimilarity_figures``,
``dvs_figures``, ``view_construction_figures``, ``benchmark_figures``, ``siamese_figures``), the figures several
pages draw in ``shared_figures``, the colours they share in ``palette``.
"""
