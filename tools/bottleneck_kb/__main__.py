"""`python -m bottleneck_kb`: the `kb` command, for an environment without its console script."""

from .cli import run

if __name__ == "__main__":  # imported (by a walk of the package), it must not run
    run()
