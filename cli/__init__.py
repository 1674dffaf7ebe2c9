"""The descgen command-line interface."""
