"""kb check as a library: run the rules on a knowledge base, or on what a change touches, and
the results."""
