"""The papers' own tables, cell by cell: the protocols that run them (:mod:`.sdf_paper`, :mod:`.ofsp_paper`), the
draws files and their t intervals (:mod:`.cells`), and the cells files and docs/reproduction.md's generated
sections written from them (:mod:`.report`)."""
