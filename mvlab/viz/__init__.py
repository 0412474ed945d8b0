"""Pictures: plotly figure builders (pure functions, data in, figure out) and 2-D projections."""
