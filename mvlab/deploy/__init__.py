"""Running the dashboard for a room: :mod:`mvlab.deploy.serve` starts several Streamlit server processes on one job
engine and one store, behind nginx, and keeps them running (``python -m mvlab serve``). It starts processes and
imports nothing of the dashboard's code (:mod:`mvlab.ui`)."""
