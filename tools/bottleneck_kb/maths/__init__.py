"""The formula language (parse, functions, evaluate), interval arithmetic, the symbolic view
and its budget: no YAML, no hardware."""
