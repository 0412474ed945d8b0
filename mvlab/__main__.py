"""``python -m mvlab``: see :mod:`mvlab.cli`."""

from mvlab.cli import main

raise SystemExit(main())
