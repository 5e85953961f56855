"""Read one YAML file into plain data that knows where each key and value was written.

Most files keep the block layout `kb fmt` writes, and `layout` reads those line by line, with
the lines of their keys and items; it gives up on anything else (and on anything a rule would
report), and libyaml reads that file. libyaml composes the node tree in C and data is built
from the same nodes. Both are faster than `yaml.load`, whose Python constructor is the slow
part, and both sidestep the traps of YAML 1.1 that PyYAML's resolver springs: `yes` -> True and
`1e9` -> a string are read as YAML 1.2 reads them, duplicate keys are refused instead of the
last one winning. Anchors and aliases (the billion-laughs bomb) are refused before any node is
composed: a cheap pattern finds every place one could stand, and only then does an exact scan
of libyaml's events decide (the layout reader gives up on any). Nesting is bounded by libyaml
(1,000 levels) and by MAX_DEPTH here.

One job per module:
    files       reading a file safely (size, symlinks, not a regular file)
    characters  decoding, and the characters an entry may not hold
    scan        libyaml's events: directives, anchors, aliases, tags, node count
    loader      the stages in order
    composer    composing with libyaml, for a file the layout reader gives up on
    layout      the block layout kb fmt writes, read without libyaml, and where its nodes start
    build       node tree to data: depth, keys, duplicates, the inline fast path
    scalars     the scalar rules: null, booleans, numbers, YAML 1.1 portability
    document    Document: the data, and where each part of it was written
    positions   lines and columns inside escaped, folded and block strings
    problems    the limits, and how a stage stops (the codes are core.codes')
"""

from .document import Document, Pointer
from .files import read_file
from .loader import load
from .problems import MAX_DEPTH, MAX_FILE_BYTES, MAX_KEY_LENGTH, MAX_NODES, MAX_NUMBER_DIGITS

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_KEY_LENGTH",
    "MAX_NODES",
    "MAX_NUMBER_DIGITS",
    "Document",
    "Pointer",
    "load",
    "read_file",
]
