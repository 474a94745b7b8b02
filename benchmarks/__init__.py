"""Benchmarks: programs that measure and print numbers (JSON), never timed tests.

Each is a ``tricktable bench`` command (service/cli/bench.py) or runs with ``python -m``:

- :mod:`benchmarks.service` — moves through the service (unary and play stream) beside a floor
  and a bound measured in the same run (``bench service``);
- :mod:`benchmarks.bound` and :mod:`benchmarks.single_method` — the bound's server, and the
  one-method server the floor and the bound share;
- :mod:`benchmarks.streams` — many idle event streams on one replica (``bench streams``);
- :mod:`benchmarks.clocks` — the delay from a clock's deadline to its commit (``bench clocks``);
- :mod:`benchmarks.cluster_client` — the store's client on a Redis Cluster (``bench
  cluster-client``);
- :mod:`benchmarks.web_doors` — a move through native gRPC, Connect and gRPC-Web.
"""
