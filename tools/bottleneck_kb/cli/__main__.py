"""`python -m bottleneck_kb.cli`, as `python -m bottleneck_kb`."""

from .main import run

if __name__ == "__main__":  # imported (by a walk of the package), it must not run
    run()
