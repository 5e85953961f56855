"""The kb command: a thin layer of click over the library (`main`, the group; `run`, the
console script)."""

from .main import main, run

__all__ = ["main", "run"]
