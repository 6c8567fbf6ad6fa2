"""CodeExec's operations on the real sandbox (bubblewrap): one-shot runs, limits, sessions, installs, scripts."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client

from codexec_mcp.host import build_host
from codexec_mcp.server import server
from codexec_mcp.service import CodeExec
from shared.mcp_tools import InvalidArguments, NotAllowed, ToolFailure
from tests.codexec_support import (
    build_service,
    build_wheel,
    codexec_settings,
    processes_with,
    require_node,
    require_sandbox,
)

pytestmark = pytest.mark.slow


@pytest.fixture
async def service(annabelle_home: Path) -> AsyncIterator[CodeExec]:
    running = build_service(annabelle_home, codexec_kill_grace_seconds=1)
    yield running
    await running.sessions.close_all()  # a test that leaves a session open must not leave its process behind


async def test_python_node_and_bash_each_run_once_and_report_their_output(service: CodeExec) -> None:
    require_node()
    python = await service.execute_code(
        "python", "import sys\nprint(6 * 7)\nprint('oops', file=sys.stderr)", None, None
    )
    node = await service.execute_code(
        "node", "const fs = require('fs'); console.log(typeof fs.readFileSync)", None, None
    )
    esm = await service.execute_code(
        "node", "import os from 'node:os'; console.log(await Promise.resolve(os.EOL.length))", None, None
    )
    bash = await service.execute_code("bash", 'echo "$((2 + 3))"; exit 4', None, None)
    assert (python.stdout, python.stderr, python.exit_code) == ("42\n", "oops\n", 0)
    assert node.stdout == "function\n" and esm.stdout == "1\n"
    assert (bash.stdout, bash.exit_code) == ("5\n", 4)
    assert python.isolation == "bwrap" and python.warning is None


async def test_a_run_gets_a_fresh_folder_that_is_kept_only_when_it_made_files(service: CodeExec) -> None:
    sandbox = service.settings.sandbox_dir
    quiet = await service.execute_code("python", "print('nothing written')", None, None)
    busy = await service.execute_code("python", "open('report.csv', 'w').write('a,b')", None, None)
    assert quiet.working_dir == "" and busy.working_dir.startswith("run-")
    assert busy.artifacts.created == ["report.csv"]
    assert (sandbox / busy.working_dir / "report.csv").read_text() == "a,b"
    assert sorted(p.name for p in sandbox.iterdir() if not p.name.startswith(".")) == [busy.working_dir]


async def test_a_named_working_dir_is_shared_between_runs(service: CodeExec) -> None:
    first = await service.execute_code("bash", "echo hello > note.txt; pwd", None, "project-a")
    second = await service.execute_code("python", "print(open('note.txt').read().strip())", None, "/sandbox/project-a")
    changed = await service.execute_code("bash", "echo again >> note.txt; rm -f none", None, "project-a")
    assert first.stdout == "/sandbox/project-a\n" and second.stdout == "hello\n"
    assert changed.artifacts.modified == ["note.txt"] and changed.working_dir == "project-a"
    with pytest.raises(InvalidArguments, match="outside the sandbox"):
        await service.execute_code("bash", "pwd", None, "/etc")


async def test_a_run_over_its_time_is_stopped_with_its_whole_process_tree(service: CodeExec) -> None:
    marker = "codexec-timeout-marker-7c1"
    code = f"import subprocess, time\nsubprocess.Popen(['bash', '-c', 'sleep 300; : {marker}'])\nprint('started', flush=True)\ntime.sleep(300)"
    result = await service.execute_code("python", code, 1500, None)
    assert result.timed_out and result.stdout == "started\n"
    assert result.note is not None and "wall-time limit of 1.5 s" in result.note
    assert result.duration_ms < 1500 + 1000 + 3000
    assert processes_with(marker) == []


async def test_a_flood_of_output_is_truncated_head_and_tail_and_stopped_at_the_byte_limit(annabelle_home: Path) -> None:
    service = build_service(annabelle_home, codexec_max_output_bytes=1_000_000)
    long = await service.execute_code("python", "print('A' * 5000 + 'B' * 5000 + 'C' * 5000)", None, None)
    flood = await service.execute_code("python", "import sys\nwhile True: sys.stdout.write('x' * 65536)", 20_000, None)
    assert long.truncated and long.stdout.startswith("A" * 4000) and long.stdout.endswith("C" * 3999 + "\n")
    assert "[... truncated 7001 characters ...]" in long.stdout
    assert flood.truncated and not flood.timed_out
    assert flood.note is not None and "output" in flood.note
    assert len(flood.stdout) < 9000


async def test_cpu_memory_process_and_file_limits_are_enforced_by_the_kernel(annabelle_home: Path) -> None:
    service = build_service(annabelle_home, codexec_cpu_seconds=1, codexec_memory_mb=200, codexec_max_file_mb=2)
    spin, memory, fork, big_file = await asyncio.gather(
        service.execute_code("python", "while True: pass", 20_000, None),
        service.execute_code("python", "x = bytearray(400 * 1024 * 1024)", None, None),
        service.execute_code(
            "python",
            "import os, time\nn = 0\ntry:\n    while True:\n        if os.fork() == 0:\n            time.sleep(2); os._exit(0)\n        n += 1\nexcept OSError as e:\n    print('stopped', n < 64)",
            None,
            None,
        ),
        service.execute_code("python", "open('big', 'wb').write(b'0' * 5 * 1024 * 1024)", None, None),
    )
    assert not spin.timed_out and spin.exit_code in (137, 152) and "CPU" in (spin.note or "")
    assert "MemoryError" in memory.stderr
    assert fork.stdout == "stopped True\n"
    assert big_file.exit_code == 153 or "File too large" in big_file.stderr


async def test_cancelling_a_call_kills_its_sandbox(service: CodeExec) -> None:
    marker = "codexec-cancel-marker-3f2"
    task = asyncio.create_task(service.execute_code("bash", f"bash -c 'sleep 300; : {marker}'", 60_000, None))
    for _ in range(100):
        await asyncio.sleep(0.05)
        if processes_with(marker):
            break
    assert processes_with(marker)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert processes_with(marker) == []


async def test_a_session_keeps_state_survives_an_interrupt_and_ends_on_exit(service: CodeExec) -> None:
    started = await service.start_session("python", "calc", None)
    sid = started.session_id
    await service.send_to_session(sid, None, "total = 40", None)
    value = await service.send_to_session(sid, None, "total + 2", None)
    slow = await service.send_to_session(sid, None, "import time\ntime.sleep(30)", 500)
    after = await service.send_to_session(sid, None, "total", None)
    error = await service.send_to_session(sid, None, "1/0", None)
    bye = await service.send_to_session(sid, None, "exit()", None)
    assert started.name == "calc" and value.stdout == "42\n"
    assert slow.timed_out and not slow.session_closed and "still there" in (slow.note or "")
    assert after.stdout == "40\n"
    assert "ZeroDivisionError" in error.stderr and "python_driver" not in error.stderr
    assert bye.session_closed
    assert service.list_sessions().sessions == []


async def test_a_node_session_is_started_by_the_first_send_and_keeps_top_level_declarations(service: CodeExec) -> None:
    require_node()
    first = await service.send_to_session(None, "node", "const base = 10; function twice(x) { return 2 * x }", None)
    second = await service.send_to_session(first.session_id, None, "twice(base) + 1", None)
    awaited = await service.send_to_session(
        first.session_id, None, "await new Promise(r => setTimeout(() => r(base), 10))", None
    )
    assert first.session_created and second.stdout == "21\n"
    assert awaited.stdout == "10\n"
    with pytest.raises(InvalidArguments, match="runs node, not python"):
        await service.send_to_session(first.session_id, "python", "1", None)
    with pytest.raises(InvalidArguments, match="Give session_id"):
        await service.send_to_session(None, None, "1", None)


async def test_a_session_that_never_answers_is_killed_and_said_so(service: CodeExec) -> None:
    started = await service.start_session("python", None, None)
    stuck = await service.send_to_session(
        started.session_id,
        None,
        "import signal, time\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\ntime.sleep(60)",
        300,
    )
    assert stuck.timed_out and stuck.session_closed
    with pytest.raises(ToolFailure, match="No session"):
        await service.send_to_session(started.session_id, None, "1", None)


async def test_at_most_five_sessions_run_and_idle_ones_are_closed(annabelle_home: Path) -> None:
    require_sandbox()
    now = [1000.0]
    settings = codexec_settings(annabelle_home, codexec_session_idle_minutes=1)
    service = CodeExec(settings, build_host(settings), None, clock=lambda: now[0])
    started = await asyncio.gather(*(service.start_session("python", f"s{i}", None) for i in range(5)))
    with pytest.raises(ToolFailure, match="At most 5 sessions"):
        await service.start_session("python", None, None)
    now[0] += 45
    await service.send_to_session(started[0].session_id, None, "1", None)
    now[0] += 30
    closed = await service.sessions.reap_idle()
    assert {c.reason for c in closed} == {"idle_timeout"} and len(closed) == 4
    assert [s.session_id for s in service.list_sessions().sessions] == [started[0].session_id]
    info = service.list_sessions().sessions[0]
    assert info.executions_count == 1 and info.memory_mb and info.memory_mb > 1
    await service.sessions.close_all()
    assert service.list_sessions().sessions == []


async def test_installing_is_refused_without_network_and_works_from_a_local_wheel_folder(
    annabelle_home: Path, tmp_path: Path
) -> None:
    offline = build_service(annabelle_home)
    with pytest.raises(NotAllowed, match="CODEXEC_NETWORK=true"):
        await offline.install_package("python", "tinypkg", None)
    with pytest.raises(NotAllowed, match="needs the network"):
        await offline.install_package("node", "lodash", None)
    with pytest.raises(InvalidArguments, match="not a package name"):
        await offline.install_package("python", "--index-url=http://127.0.0.1:1/simple", None)

    build_wheel(tmp_path / "wheels")
    service = build_service(annabelle_home, codexec_pip_find_links=tmp_path / "wheels")
    session = await service.start_session("python", None, None)
    installed = await service.install_package("python", "tinypkg", session.session_id)
    one_shot = await service.execute_code("python", "import tinypkg; print(tinypkg.VALUE)", None, None)
    in_session = await service.send_to_session(session.session_id, None, "import tinypkg; tinypkg.VALUE", None)
    assert installed.version == "1.0" and installed.package_name == "tinypkg"
    assert one_shot.stdout == "42\n" and in_session.stdout == "42\n"
    assert service.list_sessions().sessions[0].packages_installed == ["tinypkg"]
    with pytest.raises(ToolFailure, match="could not install 'missingpkg'"):
        await service.install_package("python", "missingpkg", None)
    await service.sessions.close_all()


async def test_saved_scripts_run_with_arguments_and_record_their_runs(service: CodeExec) -> None:
    saved = await service.save_and_run_script(
        "Greeter", "Greets people", "bash", 'echo "hello $1 and $2"', ["demo"], [], ["ann", "bob"], None, None
    )
    again = await service.run_script("greeter", ["cy", "di"], None, None)
    failing = await service.save_and_run_script(
        "Fails", "exits 3", "python", "raise SystemExit(3)", [], [], [], None, None
    )
    assert saved.created and saved.stdout == "hello ann and bob\n" and again.stdout == "hello cy and di\n"
    assert failing.exit_code == 3
    metadata = service.get_script("greeter").metadata
    assert metadata.run_count == 2 and metadata.last_run_success is True
    assert service.get_script("fails").metadata.last_run_success is False


async def test_a_missing_interpreter_answers_with_what_to_install(service: CodeExec) -> None:
    assert service.host is not None
    paths = {**service.host.interpreters.paths, "node": None}
    service.host = dataclasses.replace(
        service.host, interpreters=dataclasses.replace(service.host.interpreters, paths=paths)
    )
    with pytest.raises(ToolFailure, match=r"Install Node.js \(Debian/Ubuntu: apt-get install nodejs npm\)"):
        await service.execute_code("node", "1", None, None)


async def test_without_a_sandbox_code_is_refused_with_the_reason_and_scripts_still_work(annabelle_home: Path) -> None:
    settings = codexec_settings(annabelle_home)
    service = CodeExec(settings, None, "bubblewrap is not installed, so code cannot be sandboxed.")
    with pytest.raises(ToolFailure, match="bubblewrap is not installed"):
        await service.execute_code("python", "print(1)", None, None)
    with pytest.raises(ToolFailure, match="bubblewrap is not installed"):
        await service.start_session("python", None, None)
    assert service.save_script("kept", "d", "python", "print(1)", [], []).created


async def test_limits_only_mode_still_cleans_the_environment_limits_and_warns(
    annabelle_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANNABELLE_TOKEN", "canary-token-1f0e")
    service = build_service(annabelle_home, codexec_isolation="limits-only", codexec_max_processes=8)
    result = await service.execute_code(
        "python",
        "import os\nprint(sorted(k for k in os.environ if 'ANNABELLE' in k or 'TOKEN' in k))\nprint(os.getuid())",
        None,
        None,
    )
    assert result.isolation == "limits-only" and result.warning and "WITHOUT" in result.warning
    lines = result.stdout.splitlines()
    assert lines[0] == "[]"
    if os.geteuid() == 0:
        assert lines[1] == "65534"
    timed = await service.execute_code("bash", "sleep 30 & sleep 30", 500, None)
    assert timed.timed_out


async def test_code_with_a_lone_surrogate_runs_instead_of_crashing_the_tool(service: CodeExec) -> None:
    # JSON allows "\ud800"; the file gets '?' in its place, the script library too.
    result = await service.execute_code("python", "print('ok')  # \ud800", None, None)
    saved = service.save_script("odd", "has \ud800", "python", "print(1) # \ud800", [], [])
    assert result.stdout == "ok\n" and saved.created
    assert "?" in service.get_script("odd").code


async def test_the_servers_lifespan_turns_an_unusable_sandbox_into_a_sentence_and_keeps_the_library(
    annabelle_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEXEC_SANDBOX_DIR", str(annabelle_home))
    async with Client(server) as client:
        refused = json.loads(
            (await client.call_tool("execute_code", {"language": "python", "code": "1"})).content[0].text
        )
        saved = json.loads(
            (
                await client.call_tool(
                    "save_script", {"name": "kept", "description": "d", "language": "python", "code": "print(1)"}
                )
            )
            .content[0]
            .text
        )
    assert refused["success"] is False and refused["errorCode"] == "TOOL_ERROR"
    assert "would expose ANNABELLE_HOME" in refused["error"]
    assert saved["success"] is True
