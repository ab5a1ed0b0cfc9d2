"""The Sphinx extensions conf.py loads, one job each (the module docstrings say which)."""
