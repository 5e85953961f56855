"""Bottleneck KB: a knowledge base of ML-systems performance bottlenecks whose numbers are live."""

from __future__ import annotations


def __getattr__(name: str) -> str:
    # Looked up on first use: importing importlib.metadata costs more than the rest of what
    # `kb --help` imports.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("bottleneck-kb")
        except PackageNotFoundError:  # a source tree that was never installed
            return "0+unknown"
    raise AttributeError(name)
