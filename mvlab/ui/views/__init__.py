"""The views of the pages, one module each: ``view(result, shown)`` draws one result (``view(shown)`` on a page that
trains nothing), ``controls(form)`` the page's widgets, ``waiting(shown)`` what it says before a result. Every view
is imported with the package, so a web server that imports one (:mod:`mvlab.ui.web_process`) has them all."""

from mvlab.ui.views import (
    benchmark_page,
    data_page,
    dissimilarity_page,
    dvs_page,
    home_page,
    lessons_page,
    papers_page,
    siamese_page,
    view_construction_page,
)

__all__ = ["benchmark_page", "data_page", "dissimilarity_page", "dvs_page", "home_page", "lessons_page",
           "papers_page", "siamese_page", "view_construction_page"]
