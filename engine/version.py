"""Parley's version, as the installed package's metadata says (pyproject.toml is the one source)."""

from importlib.metadata import PackageNotFoundError, version

try:
    VERSION = version("parley")
except PackageNotFoundError:  # running from a source tree that was never installed
    VERSION = "0+unknown"
