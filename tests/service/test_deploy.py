"""What can be checked of ``deploy/`` without a Docker engine or a cluster (none runs here): the
files parse, the paths the Dockerfile copies exist, every ``tricktable`` command line is accepted
by the real parser, and probes, ports and the Redis URL agree with the server. Building the image
and running it are not verified by this test (deploy/README.md says so too)."""

from __future__ import annotations

import ipaddress
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from service.cli import build_parser, main
from service.config import REDIS_URL_ENV
from service.readiness import LIVENESS
from service.server import SERVICE_NAME
from tests.servers import running_server

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    text = (DEPLOY / "Dockerfile").read_text()
    joined = text.replace("\\\n", " ")
    out = []
    for raw in joined.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def json_or_shell(args: str) -> list[str]:
    if args.startswith("["):
        parsed: list[str] = yaml.safe_load(args)  # a JSON array is YAML too
        return parsed
    return shlex.split(args)


def assert_tricktable_command(argv: list[str]) -> None:
    """The real parser accepts ``tricktable <argv>`` (argparse exits on anything unknown)."""
    args = build_parser().parse_args(argv)
    assert callable(args.run)


def test_the_dockerfile_is_multi_stage_non_root_and_copies_paths_that_exist() -> None:
    steps = dockerfile_instructions()
    stages = [args for word, args in steps if word == "FROM"]
    assert len(stages) == 2 and " AS build" in stages[0]
    copies = [json_or_shell(args) for word, args in steps if word == "COPY"]
    for copy in copies:
        if copy[0].startswith("--from="):
            continue
        for source in copy[:-1]:
            assert (ROOT / source).exists(), f"the Dockerfile copies {source}, which is missing"
    runs = " ".join(args for word, args in steps if word == "RUN")
    assert "-c requirements.lock" in runs  # pinned installs
    users = [args for word, args in steps if word == "USER"]
    assert users and users[-1].split(":")[0] not in {"0", "root"}
    entry = json_or_shell(next(args for word, args in steps if word == "ENTRYPOINT"))
    cmd = json_or_shell(next(args for word, args in steps if word == "CMD"))
    assert entry == ["tricktable"]
    assert_tricktable_command(cmd)
    assert cmd[:3] == ["serve", "--host", "0.0.0.0"]
    check = next(args for word, args in steps if word == "HEALTHCHECK")
    health = json_or_shell(check.split(" CMD ", 1)[1])  # after the --interval=... options
    assert health[0] == "tricktable"
    assert_tricktable_command(health[1:])
    exposed = {int(p) for word, args in steps if word == "EXPOSE" for p in args.split()}
    parsed = build_parser().parse_args(cmd)
    assert {parsed.port, parsed.web_port, parsed.metrics_port} <= exposed  # both doors


def test_the_dockerignore_lets_through_everything_the_dockerfile_copies() -> None:
    kept = {
        line[1:].rstrip("/")
        for line in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
        if line.startswith("!")
    }
    copied = {
        source.rstrip("/").removeprefix("./")
        for word, args in dockerfile_instructions()
        if word == "COPY" and not args.startswith("--from=")
        for source in json_or_shell(args)[:-1]
    }
    assert copied <= kept


def load_yaml(path: Path) -> list[dict[str, Any]]:
    docs = [d for d in yaml.safe_load_all(path.read_text()) if d is not None]
    assert docs, f"{path} is empty"
    return docs


def test_compose_runs_replicas_of_real_tricktable_commands_against_one_redis() -> None:
    (compose,) = load_yaml(DEPLOY / "compose.yaml")
    services = compose["services"]
    assert set(services) == {"redis", "tricktable"}
    app = services["tricktable"]
    assert app["build"]["dockerfile"] == "deploy/Dockerfile"
    assert (DEPLOY / app["build"]["context"] / app["build"]["dockerfile"]).exists()
    assert app["deploy"]["replicas"] > 1
    assert_tricktable_command(app["command"])
    # Both doors and the metrics are published, one host port per replica.
    args = build_parser().parse_args(app["command"])
    published = {int(p.split(":")[1]): p.split(":")[0] for p in app["ports"]}
    assert set(published) == {args.port, args.web_port, args.metrics_port}
    for host_ports in published.values():
        low, high = (int(n) for n in host_ports.split("-"))
        assert high - low + 1 == app["deploy"]["replicas"]
    assert app["environment"][REDIS_URL_ENV].startswith("redis://redis:")
    assert app["depends_on"]["redis"]["condition"] == "service_healthy"
    health = app["healthcheck"]["test"]
    assert health[:2] == ["CMD", "tricktable"]
    assert_tricktable_command(health[2:])


def k8s_objects() -> dict[tuple[str, str], dict[str, Any]]:
    out = {}
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        for doc in load_yaml(path):
            if doc.get("kind") == "Kustomization":
                for resource in doc["resources"]:
                    assert (DEPLOY / "k8s" / resource).exists(), resource
                continue
            assert doc["apiVersion"] and doc["metadata"]["name"]
            out[(doc["kind"], doc["metadata"]["name"])] = doc
    return out


def test_kubernetes_manifests_probe_grpc_health_and_read_the_redis_url_from_a_configmap() -> None:
    objects = k8s_objects()
    assert {
        ("Deployment", "tricktable"),
        ("Service", "tricktable"),
        ("Deployment", "tricktable-redis"),
        ("Service", "tricktable-redis"),
        ("ConfigMap", "tricktable"),
    } <= set(objects)
    config = objects[("ConfigMap", "tricktable")]["data"]
    redis_service = objects[("Service", "tricktable-redis")]
    assert config[REDIS_URL_ENV].startswith(f"redis://{redis_service['metadata']['name']}:")
    pod = objects[("Deployment", "tricktable")]["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert_tricktable_command(container["args"])
    args = build_parser().parse_args(container["args"])
    assert args.host == "0.0.0.0"
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"grpc": args.port, "web": args.web_port, "metrics": args.metrics_port}
    service_ports = {p["name"]: p for p in objects[("Service", "tricktable")]["spec"]["ports"]}
    assert {n: p["targetPort"] for n, p in service_ports.items()} == {n: n for n in ports}
    assert service_ports["grpc"]["appProtocol"] == "grpc"
    assert service_ports["web"]["appProtocol"] == "http"
    assert container["envFrom"][0]["configMapRef"]["name"] == "tricktable"
    assert container["readinessProbe"]["grpc"] == {"port": args.port, "service": SERVICE_NAME}
    # Liveness must not follow the store: Redis down would restart every replica.
    assert container["livenessProbe"]["grpc"] == {"port": args.port, "service": LIVENESS}
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["terminationGracePeriodSeconds"] > args.grace
    selector = objects[("Deployment", "tricktable")]["spec"]["selector"]["matchLabels"]
    assert objects[("Service", "tricktable")]["spec"]["selector"] == selector


def test_the_health_command_reports_a_serving_server_and_an_absent_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with running_server() as served:
        address = served.address
        assert main(["health", "--address", address]) == 0
        assert main(["health", "--address", address, "--service", SERVICE_NAME]) == 0
    assert "SERVING" in capsys.readouterr().out
    assert main(["health", "--address", address, "--timeout", "0.5"]) == 1  # stopped


def test_kubernetes_ingresses_serve_both_doors_and_trust_their_controller() -> None:
    objects = k8s_objects()
    service = objects[("Service", "tricktable")]
    service_ports = {p["name"] for p in service["spec"]["ports"]}
    backends = {}
    for (kind, _), ingress in objects.items():
        if kind != "Ingress":
            continue
        assert ingress["apiVersion"] == "networking.k8s.io/v1"
        (rule,) = ingress["spec"]["rules"]
        assert rule["host"] in ingress["spec"]["tls"][0]["hosts"]  # served over TLS
        (path,) = rule["http"]["paths"]
        backend = path["backend"]["service"]
        assert backend["name"] == service["metadata"]["name"]
        assert backend["port"]["name"] in service_ports
        backends[backend["port"]["name"]] = ingress["metadata"].get("annotations", {})
    assert set(backends) == {"grpc", "web"}  # one Ingress per door
    assert backends["grpc"]["nginx.ingress.kubernetes.io/backend-protocol"] == "GRPC"
    for notes in backends.values():  # long-lived streams
        assert int(notes["nginx.ingress.kubernetes.io/proxy-read-timeout"]) >= 600
    # The per-address limits count the players behind the controller, not the controller.
    proxies = objects[("ConfigMap", "tricktable")]["data"]["TRICKTABLE_TRUSTED_PROXIES"]
    assert [ipaddress.ip_network(cidr) for cidr in proxies.replace(",", " ").split()]


def test_kubernetes_scales_the_replicas_and_keeps_enough_through_disruptions() -> None:
    objects = k8s_objects()
    deployment = objects[("Deployment", "tricktable")]
    hpa = objects[("HorizontalPodAutoscaler", "tricktable")]
    assert hpa["apiVersion"] == "autoscaling/v2"
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["kind"], target["name"]) == ("Deployment", deployment["metadata"]["name"])
    assert 2 <= hpa["spec"]["minReplicas"] <= deployment["spec"]["replicas"]
    assert hpa["spec"]["maxReplicas"] > hpa["spec"]["minReplicas"]
    (metric,) = hpa["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu"
    assert "cpu" in deployment["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]
    pdb = objects[("PodDisruptionBudget", "tricktable")]
    assert pdb["apiVersion"] == "policy/v1"
    assert pdb["spec"]["selector"] == deployment["spec"]["selector"]
    assert pdb["spec"]["maxUnavailable"] < hpa["spec"]["minReplicas"]


def test_the_kustomization_lists_every_manifest_and_renders() -> None:
    """Every file of deploy/k8s is a resource of the kustomization; ``kubectl kustomize``
    (kustomize, offline: no cluster needed) renders it where kubectl is installed."""
    (kustomization,) = load_yaml(DEPLOY / "k8s" / "kustomization.yaml")
    listed = set(kustomization["resources"])
    files = {p.name for p in (DEPLOY / "k8s").glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == files
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("no kubectl to render the kustomization with (the checks above ran)")
    rendered = subprocess.run(
        [kubectl, "kustomize", str(DEPLOY / "k8s")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    docs = [d for d in yaml.safe_load_all(rendered) if d]
    assert {(d["kind"], d["metadata"]["name"]) for d in docs} == set(k8s_objects())
    namespaced = [d for d in docs if d["kind"] != "Namespace"]
    assert all(d["metadata"]["namespace"] == kustomization["namespace"] for d in namespaced)
