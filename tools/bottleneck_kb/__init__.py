"""Bottleneck KB: a knowledge base of ML-systems performance bottlenecks whose numbers are live."""


def __getattr__(name: str) -> str:
    # __version__ is looked up on demand: importlib.metadata costs a one-file `kb check` (the
    # pre-commit hook) more than reading and checking the file.
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bottleneck-kb")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"
