"""Bottleneck KB: a knowledge base of ML-systems performance bottlenecks whose numbers are live."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("bottleneck-kb")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"
