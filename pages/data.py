"""Data page: what is in my data?"""

from mvlab.ui.page import Page, run_page
from mvlab.ui.views import data_page

run_page(Page("data", data_page.view))
