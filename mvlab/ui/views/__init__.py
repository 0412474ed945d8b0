"""The views of the dashboard's pages: one module per page, each a plain function that draws one result
(``view(result, shown)``), the page's controls (``controls(form)``) and what it says before a result
(``waiting(shown)``); :func:`mvlab.ui.page.run_page` calls them."""
