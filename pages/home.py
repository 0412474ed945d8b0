"""Home: what mvlab is and what each page answers."""

from mvlab.ui.page import Page, run_page
from mvlab.ui.views import home_page

run_page(Page("home", home_page.view))
