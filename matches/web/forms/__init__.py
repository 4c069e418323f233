"""The site's forms, a module per feature; import each from its own module."""
