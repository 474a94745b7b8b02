"""``tricktable health``: ask a server's gRPC health service whether it is serving.

For container health checks (Docker ``HEALTHCHECK``, compose ``healthcheck``) where no gRPC probe
is built in; Kubernetes probes the same health service natively. Exit status 0: SERVING.
"""

from __future__ import annotations

import argparse
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from tricktable import tls
from tricktable.cli.common import add_tls_arguments, tls_options


def register(sub: Any) -> None:
    p = sub.add_parser("health", help="check that a server is serving (exit 0) or not (exit 1)")
    p.add_argument(
        "--address", default="127.0.0.1:50051", help="host:port (default 127.0.0.1:50051)"
    )
    p.add_argument("--service", default="", help="service name to check (default: the server)")
    p.add_argument("--timeout", type=float, default=3.0, metavar="SECONDS", help="default 3")
    add_tls_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    with tls.channel(args.address, **tls_options(args)) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(
                health_pb2.HealthCheckRequest(service=args.service), timeout=args.timeout
            )
        except grpc.RpcError as err:
            print(f"tricktable: {args.address}: {err.code().name}", flush=True)
            return 1
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    print(f"{args.address}: {status}", flush=True)
    return 0 if reply.status == health_pb2.HealthCheckResponse.SERVING else 1
