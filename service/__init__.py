"""Tricktable's service layer: the command line today, the gRPC server and stores next."""
