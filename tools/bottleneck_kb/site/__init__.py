"""The browsable site: the knowledge base as pages, charts and a JSON export.

`pages` turns a knowledge base into Markdown pages and assets from the typed model and the
evaluation (reached only through `view`); `plugin` is the thin adapter that hands
them to MkDocs at build time. Nothing here is committed output: every build regenerates it.
"""
