"""The version of mvlab (one place; ``mvlab.__version__`` and the results store read it)."""

VERSION = "0.11.4"
