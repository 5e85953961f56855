"""`python -m bottleneck_kb`: the `kb` command, for an environment without its console script."""

from .cli import run

run()
