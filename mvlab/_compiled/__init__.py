"""mvlab's compiled modules: C extensions built by ``pip install`` where a C compiler and the Python headers are
found (``setup.py``), each wrapped by the pure-Python module that documents it and falls back when it is missing.

* ``traverse`` (``traverse.c``): the traversal of compact forests, wrapped by :mod:`mvlab.siamese._traverse`.

The package imports nothing itself, so importing a compiled module never imports the modules that use it.
"""
