"""The site's generated pages, one module a page kind; `build` makes them all."""
