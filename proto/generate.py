"""Generate the Python code of the protocol into ``clients/python/tricktable/v1``.

    python3 dev.py python proto/generate.py           # regenerate (after editing a .proto)
    python3 dev.py python proto/generate.py --check   # CI: fail if the checked-in code is stale

Messages come from grpcio-tools' protoc, services from its gRPC plugin and from
protoc-gen-connect-python (``*_connect.py``: the Connect and gRPC-Web server application and
clients, which import the same ``_pb2`` messages), and typed stubs (``.pyi``) for messages and
gRPC services from mypy-protobuf. The output is checked in, so a client installs the
protocol package without protoc; ``--check`` regenerates into a scratch directory and compares.
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import sys
import sysconfig
import tempfile
from pathlib import Path

from grpc_tools import protoc

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "proto"
PACKAGE = Path("tricktable") / "v1"
OUT_ROOT = ROOT / "clients" / "python"
_INIT = '"""Generated from proto/tricktable/v1 by proto/generate.py: do not edit."""\n'


def _plugin(name: str) -> str:
    scripts = Path(sysconfig.get_path("scripts"))
    path = scripts / name
    if not path.exists():
        raise SystemExit(f"generate.py: {name} not found in {scripts} (python3 dev.py installs it)")
    return str(path)


def generate(out_root: Path) -> list[Path]:
    """Write the generated package under ``out_root``; return the files written."""
    target = out_root / PACKAGE
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    protos = sorted(str(p.relative_to(PROTO_ROOT)) for p in (PROTO_ROOT / PACKAGE).glob("*.proto"))
    # Only files that declare a service get gRPC modules (the others would be empty shells).
    services = [p for p in protos if "\nservice " in (PROTO_ROOT / p).read_text()]
    well_known = Path(protoc.__file__).parent / "_proto"
    include = [f"-I{PROTO_ROOT}", f"-I{well_known}"]
    messages = [
        f"--plugin=protoc-gen-mypy={_plugin('protoc-gen-mypy')}",
        f"--python_out={out_root}",
        f"--mypy_out={out_root}",
    ]
    stubs = [
        f"--plugin=protoc-gen-mypy_grpc={_plugin('protoc-gen-mypy_grpc')}",
        f"--grpc_python_out={out_root}",
        f"--mypy_grpc_out={out_root}",
        f"--plugin=protoc-gen-connect-python={_plugin('protoc-gen-connect-python')}",
        f"--connect-python_out={out_root}",
    ]
    for args in (["protoc", *include, *messages, *protos], ["protoc", *include, *stubs, *services]):
        if protoc.main(args) != 0:
            raise SystemExit("generate.py: protoc failed")
    (target / "__init__.py").write_text(_INIT)
    (target / "py.typed").write_text("")
    return sorted(p for p in target.rglob("*") if p.is_file())


def _tree(root: Path) -> set[Path]:
    return {
        p.relative_to(root) for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    }


def check() -> int:
    with tempfile.TemporaryDirectory() as scratch:
        fresh_root = Path(scratch)
        generate(fresh_root)
        fresh, current = fresh_root / PACKAGE, OUT_ROOT / PACKAGE
        want, have = _tree(fresh), _tree(current) if current.exists() else set()
        stale = sorted(str(p) for p in want ^ have)
        stale += sorted(
            str(p) for p in want & have if not filecmp.cmp(fresh / p, current / p, shallow=False)
        )
    if stale:
        print(
            "generate.py: generated code is stale; run python3 dev.py python proto/generate.py",
            file=sys.stderr,
        )
        for name in stale:
            print(f"  {PACKAGE / name}", file=sys.stderr)
        return 1
    print("generate.py: generated code is up to date")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the checked-in code is stale")
    args = parser.parse_args(argv)
    if args.check:
        return check()
    for path in generate(OUT_ROOT):
        print(path.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
