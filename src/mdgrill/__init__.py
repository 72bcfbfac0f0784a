"""mdgrill: an agent's requirements interview kept in Markdown files people can read and diff."""

__version__ = "0.1.0"
__all__ = ["__version__"]
