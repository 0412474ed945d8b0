"""``python -m mvlab``: see :mod:`mvlab.cli`."""

from mvlab.cli import main

if __name__ == "__main__":  # the job engine's worker processes re-import this module: they must not run the CLI
    raise SystemExit(main())
