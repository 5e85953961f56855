"""The ground floor: errors, diagnostics and the neutralising of output, the display of
numbers, files written whole, work shared among processes, where kb may write. Imports
nothing of kb."""
