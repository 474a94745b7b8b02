"""Generated from proto/tricktable/v1 by proto/generate.py: do not edit."""
