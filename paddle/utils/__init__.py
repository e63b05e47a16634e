"""Utilities: dump_config."""
