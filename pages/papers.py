"""Papers page: does mvlab reproduce each paper? Its tables as published beside mvlab's, cell by cell."""

from mvlab.ui.page import Page, run_page
from mvlab.ui.views import papers_page

run_page(Page("papers", papers_page.view))
