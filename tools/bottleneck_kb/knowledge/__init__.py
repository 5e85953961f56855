"""The files of a knowledge base: which files there are, reading them into records, the
catalog, what a check of paths covers, the links between entries, git's changes, and where
the site's pages go."""
