"""dsh: an agent harness whose product is a typed lifecycle interception surface."""

__version__ = "0.1.0"

__all__ = ["__version__"]
