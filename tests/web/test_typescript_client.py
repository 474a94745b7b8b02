"""The TypeScript client package (clients/typescript, ``@tricktable/client``), from here so that
the README's test command covers it: ``npm ci`` and ``npm test`` in the package (its unit tests
and its integration tests, which start ``tricktable serve`` from this checkout on free ports);
then ``npm pack``, the tarball installed into an empty project and used from there, as a
frontend author would: the package README's example plays a whole game against a real server's
web door, and a TypeScript file importing the package type-checks under ``--strict`` (a reason
that is no ErrorReason does not).

Skips, saying why, only where Node.js or npm is not installed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.servers import ROOT, Served, running_server

PACKAGE = ROOT / "clients" / "typescript"
NODE, NPM = shutil.which("node"), shutil.which("npm")
if NODE is None or NPM is None:
    pytest.skip(
        "Node.js and npm are needed for clients/typescript (Node 20+)", allow_module_level=True
    )

NPM_QUIET = ("--no-audit", "--no-fund")


def npm(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    """``npm args`` in ``cwd``; its output, the test failing with it when npm fails."""
    done = subprocess.run(
        [str(NPM), *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"npm {' '.join(args)} failed:\n{output[-6000:]}"
    return output


@pytest.fixture(scope="module")
def installed() -> None:
    npm("ci", *NPM_QUIET, cwd=PACKAGE)


@pytest.fixture(scope="module")
def served() -> Iterator[Served]:
    with running_server(web_port=0, bot_delay_s=0.05) as served:
        yield served


def test_the_packages_unit_and_integration_tests_pass(installed: None) -> None:
    # The integration tests run `python3 dev.py tricktable serve`: with this interpreter.
    output = npm("test", cwd=PACKAGE, env={"TRICKTABLE_PYTHON": sys.executable})
    counts = dict(re.findall(r"^# (tests|pass|fail|skipped) (\d+)$", output, re.MULTILINE))
    print(f"clients/typescript npm test: {counts}")
    assert counts.get("fail") == "0", output[-6000:]
    assert int(counts.get("pass", "0")) >= 45, output[-6000:]


def tsc_check(tsc: Path, flags: list[str], project: Path) -> subprocess.CompletedProcess[str]:
    """``tsc flags check.ts`` in ``project``: its result, whatever it is."""
    command = [str(NODE), str(tsc), *flags, "check.ts"]
    return subprocess.run(command, cwd=project, capture_output=True, text=True, check=False)


STRICT_CHECK = """\
import { TricktableClient, type ErrorReasonName, type GameSession } from "@tricktable/client";
import { type RematchState, type TableState } from "@tricktable/client";
const reason: ErrorReasonName = "MUST_FOLLOW_SUIT";
const baseUrl = "http://127.0.0.1:1";
export const client: TricktableClient = new TricktableClient({ baseUrl, playerToken: () => null });
export const seats = (state: TableState): number => state.seatCount + reason.length;
export async function finding(session: GameSession): Promise<string> {
  const unlisted = await client.createGame({ gameType: "counterpoint", visibility: "unlisted" });
  await client.join(unlisted.gameId, { inviteCode: unlisted.inviteCode ?? "" });
  const lobby = await client.listGames({ status: "playing" });
  for await (const update of client.quickPlay({ gameType: "counterpoint" })) {
    if (update.kind === "matched") return update.session.gameId;
  }
  const offer: RematchState = await session.rematch();
  return offer.gameId ?? lobby.summaries[0]?.gameId ?? "";
}
"""


def test_the_packed_tarball_works_from_an_empty_project(installed: None, served: Served) -> None:
    with tempfile.TemporaryDirectory(prefix="tricktable-npm-") as where:
        folder = Path(where)
        npm("pack", "--pack-destination", str(folder), cwd=PACKAGE)
        (tarball,) = folder.glob("tricktable-client-*.tgz")
        print(f"packed: {tarball.name} {tarball.stat().st_size} bytes")
        project = folder / "project"
        project.mkdir()
        package = {"name": "empty", "private": True, "type": "module"}
        (project / "package.json").write_text(json.dumps(package))
        npm("install", *NPM_QUIET, "--prefer-offline", str(tarball), cwd=project)

        # The package README's example, as written there, against a real server's web door.
        readme = (PACKAGE / "README.md").read_text()
        example = re.search(r"## A working table.*?```js\n(.*?)```", readme, re.DOTALL)
        assert example, "the README has its example"
        (project / "table.mjs").write_text(example.group(1))
        played = subprocess.run(
            [str(NODE), "table.mjs"],
            cwd=project,
            env={**os.environ, "TRICKTABLE_URL": served.web_url},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert played.returncode == 0, played.stdout[-3000:] + played.stderr[-3000:]
        assert re.search(r"Counterpoint over: seat \d", played.stdout), played.stdout[-3000:]
        assert " | trick " in played.stdout, "the table was drawn as it went"

        # Its types, from the tarball, under --strict; a reason that is not one fails.
        tsc = PACKAGE / "node_modules" / "typescript" / "bin" / "tsc"
        flags = ["--strict", "--noEmit", "--module", "nodenext", "--moduleResolution", "nodenext"]
        flags += ["--target", "es2022", "--lib", "es2022,dom"]
        (project / "check.ts").write_text(STRICT_CHECK)
        checked = tsc_check(tsc, flags, project)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        wrong = STRICT_CHECK.replace('"MUST_FOLLOW_SUIT"', '"NOT_A_REASON"')
        (project / "check.ts").write_text(wrong)
        refused = tsc_check(tsc, flags, project)
        assert refused.returncode != 0
        assert "NOT_A_REASON" in refused.stdout, refused.stdout
        # The lobby lists games waiting or playing: any other status is no ListStatus.
        (project / "check.ts").write_text(STRICT_CHECK.replace('"playing"', '"finished"'))
        refused = tsc_check(tsc, flags, project)
        assert refused.returncode != 0
        assert "finished" in refused.stdout, refused.stdout
