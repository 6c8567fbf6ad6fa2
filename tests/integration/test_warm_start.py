"""A first-party MCP started warm (a fork of the pre-warmed interpreter) behaves like one started as a new process."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client

from orchestrator.mcp_commands import ChildCommand
from orchestrator.stdio_transport import ChildProcess, open_child
from orchestrator.warm_start import PRELOAD, WarmProcess
from tests.hub_process import start_hub

pytestmark = pytest.mark.slow

PROBE = textwrap.dedent(
    """
    import os
    import sys

    from shared.mcp_tools import EnvelopeServer, envelope_tool, run_stdio_server

    print("probe says hello on stderr", file=sys.stderr, flush=True)
    server = EnvelopeServer("probe")


    @envelope_tool(server)
    async def where() -> dict[str, object]:
        \"\"\"Where the probe runs.\"\"\"
        return {
            "cwd": os.getcwd(),
            "value": os.environ.get("PROBE_VALUE"),
            "argv": sys.argv[1:],
            "pid": os.getpid(),
            "session": os.getsid(0),
        }


    run_stdio_server(server, "probe")
    """
)


def probe_command(tmp_path: Path) -> ChildCommand:
    package = tmp_path / "lib" / "probe_mcp"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(PROBE)
    workdir = tmp_path / "work"
    workdir.mkdir()
    repo = Path(__file__).resolve().parents[2]
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": os.pathsep.join([str(tmp_path / "lib"), str(repo)]),
        "ANNABELLE_HOME": str(tmp_path / "home"),
        "ANNABELLE_STDERR_LOG_LEVEL": "WARNING",
        "PROBE_VALUE": "from the hub",
    }
    argv = [sys.executable, "-m", "probe_mcp", "--flag"]
    return ChildCommand(argv=argv, env=env, cwd=workdir, module="probe_mcp")


async def test_a_warm_mcp_answers_over_stdio_with_its_env_cwd_and_arguments_and_logs_its_stderr(tmp_path: Path) -> None:
    command = probe_command(tmp_path)
    children: list[ChildProcess] = []
    stderr_log = logging.getLogger("child.probe")
    said_hello = anyio.Event()

    class Listener(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.getMessage() == "probe says hello on stderr":
                said_hello.set()

    stderr_log.addHandler(listener := Listener())
    try:
        async with Client(open_child(command, children.append, stderr_log), cache=None) as client:
            tools = await client.list_tools()
            result = await client.call_tool("where", {})
            assert [tool.name for tool in tools.tools] == ["where"]
            data = json.loads(result.content[0].text)["data"]
            assert isinstance(children[0]._process, WarmProcess)
            assert data["pid"] == children[0].pid != os.getpid()
            assert data["session"] == data["pid"]  # leads its own session, as start_new_session would
            assert data["cwd"] == str(command.cwd)
            assert data["value"] == "from the hub"
            assert data["argv"] == ["--flag"]
            with anyio.fail_after(5):
                await said_hello.wait()
        # Leaving the transport closed its stdin: the server ended on its own, with code 0.
        assert children[0].returncode == 0
    finally:
        stderr_log.removeHandler(listener)


async def test_a_warm_mcp_killed_from_outside_is_noticed_with_its_signal(tmp_path: Path) -> None:
    command = probe_command(tmp_path)
    children: list[ChildProcess] = []
    async with Client(open_child(command, children.append, logging.getLogger("child.probe")), cache=None) as client:
        await client.list_tools()
        os.kill(children[0].pid, signal.SIGKILL)
        with anyio.fail_after(10):
            await children[0].exited.wait()
    assert children[0].returncode == -signal.SIGKILL


def test_the_preloaded_modules_start_no_thread_so_forks_of_them_are_whole() -> None:
    script = (
        "import importlib, threading, sys\n"
        + "".join(f"importlib.import_module({name!r})\n" for name in (*PRELOAD, "orchestrator.cli"))
        + "sys.exit(threading.active_count())\n"
    )
    repo = Path(__file__).resolve().parents[2]
    assert subprocess.run([sys.executable, "-c", script], cwd=repo, timeout=60).returncode == 1


def parent_pid(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def test_the_hub_forks_its_first_mcps_from_itself_and_a_killed_one_comes_back_from_the_fork_server(
    tmp_path: Path,
) -> None:
    with start_hub(tmp_path, tmp_path / "home", ["echo_mcp"]) as hub:
        first = hub.status()["mcps"]["echo"]["pid"]
        assert parent_pid(first) == hub.process.pid  # forked by `serve()` before its imports, then adopted
        assert "prestarted_mcps=1" in hub.log()
        os.kill(first, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while (mcp := hub.status()["mcps"]["echo"])["pid"] in (first, None) or not mcp["available"]:
            assert time.monotonic() < deadline, mcp
            time.sleep(0.1)
        assert parent_pid(mcp["pid"]) != hub.process.pid  # a restart is a fork of the fork server
        assert hub.call("echo_echo", {"text": "back"})["data"]["pid"] == mcp["pid"]


ADOPTION = textwrap.dedent(
    """
    import json, os, sys
    from pathlib import Path

    import anyio
    from mcp import Client

    from orchestrator.mcp_commands import ChildCommand
    from orchestrator.prestart import Prestarted
    from orchestrator.stdio_transport import open_child

    spec = json.loads(sys.argv[1])
    wanted = ChildCommand(argv=spec["argv"], env=spec["env"], cwd=Path(spec["cwd"]), module=spec["module"])
    stale = ChildCommand(argv=spec["argv"], env={**spec["env"], "PROBE_VALUE": "stale"}, cwd=wanted.cwd, module=wanted.module)
    prestarted = Prestarted()
    prestarted.fork([wanted, stale])
    stale_pid = prestarted.pids[1]

    async def main() -> dict[str, object]:
        async def adopt_only(command: ChildCommand) -> anyio.abc.Process:
            adopted = await prestarted.adopt(command)
            assert adopted is not None, "not adopted"
            return adopted

        async with Client(open_child(wanted, lambda _: None, __import__("logging").getLogger("probe"), adopt_only)) as client:
            result = await client.call_tool("where", {})
        return json.loads(result.content[0].text)["data"]

    data = anyio.run(main)
    prestarted.discard()
    print(json.dumps({"data": data, "me": os.getpid(), "stale": stale_pid, "stale_gone": not Path(f"/proc/{stale_pid}").exists()}))
    """
)


def test_a_prestarted_child_is_adopted_only_for_its_own_command_and_the_rest_are_killed(tmp_path: Path) -> None:
    command = probe_command(tmp_path)
    spec = {"argv": list(command.argv), "env": dict(command.env), "cwd": str(command.cwd), "module": command.module}
    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", ADOPTION, json.dumps(spec)], cwd=repo, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout.splitlines()[-1])
    assert outcome["data"]["value"] == "from the hub"
    assert outcome["data"]["argv"] == ["--flag"]
    assert outcome["data"]["cwd"] == str(command.cwd)
    assert outcome["data"]["session"] == outcome["data"]["pid"] != outcome["me"]
    assert outcome["stale_gone"]


def test_nothing_is_forked_from_a_process_running_another_thread(tmp_path: Path) -> None:
    command = probe_command(tmp_path)
    script = textwrap.dedent(
        f"""
        import threading
        from pathlib import Path

        from orchestrator.mcp_commands import ChildCommand
        from orchestrator.prestart import Prestarted

        release = threading.Event()
        threading.Thread(target=release.wait).start()
        prestarted = Prestarted()
        prestarted.fork([ChildCommand(argv={list(command.argv)!r}, env={dict(command.env)!r},
                                      cwd=Path({str(command.cwd)!r}), module={command.module!r})])
        release.set()
        print(len(prestarted.pids))
        """
    )
    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", script], cwd=repo, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"  # the hub then starts its MCPs from the fork server
