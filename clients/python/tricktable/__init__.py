"""Tricktable's client-side Python package. ``tricktable.v1`` is the generated protocol."""
