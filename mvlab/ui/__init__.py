"""Streamlit glue shared by the pages (the only part of mvlab that imports streamlit)."""
