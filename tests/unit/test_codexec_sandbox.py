"""CodeExec's sandbox decisions as pure functions: the command line of each isolation mode, the environment,
working folders and which folders may be shown to sandboxed code."""

from __future__ import annotations

from pathlib import Path

import pytest

from codexec_mcp.limits import Limits
from codexec_mcp.sandbox import (
    BadWorkingDir,
    HostTools,
    Mount,
    RunSpec,
    SandboxPlan,
    build_argv,
    host_cwd,
    launcher_env,
    parse_working_dir,
    passwd_entries,
    path_problem,
    sandbox_env,
    view,
)

TOOLS = HostTools(
    prlimit="/usr/bin/prlimit", setpriv="/usr/bin/setpriv", bwrap="/usr/bin/bwrap", unshare="/usr/bin/unshare"
)
LIMITS = Limits(wall_seconds=5, cpu_seconds=10, memory_mb=256, max_processes=32, max_file_mb=8)
SPEC = RunSpec(
    command=["/usr/bin/python3", "/run/codexec/main.py"], workdir=("run-1",), code_dir=Path("/tmp/c1"), limits=LIMITS
)


def plan(**changes: object) -> SandboxPlan:
    base: dict[str, object] = {
        "isolation": "bwrap",
        "tools": TOOLS,
        "sandbox_root": Path("/data/codexec/sandbox"),
        "running_as_root": True,
        "uid": 65534,
        "gid": 65534,
        "system_mounts": (Mount("ro", "/usr", "/usr"), Mount("symlink", "usr/bin", "/bin")),
        "etc_mounts": (Mount("file", "/data/codexec/host/passwd", "/etc/passwd"),),
    }
    base.update(changes)
    return SandboxPlan(**base)  # type: ignore[arg-type]


def argv_of(p: SandboxPlan, spec: RunSpec = SPEC) -> list[str]:
    return build_argv(p, spec, sandbox_env(p, view(p, spec.code_dir)))


def pairs(argv: list[str], flag: str) -> list[str]:
    return [argv[index + 1] for index, item in enumerate(argv) if item == flag]


def test_a_root_server_runs_bubblewrap_privileged_then_drops_to_the_sandbox_uid_in_a_user_namespace() -> None:
    argv = argv_of(plan())
    assert argv[0] == "/usr/bin/bwrap"
    assert "--unshare-user" not in argv
    setpriv = argv.index("/usr/bin/setpriv")
    assert argv[setpriv : setpriv + 9] == [
        "/usr/bin/setpriv",
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
        "/usr/bin/unshare",
    ]
    assert argv[setpriv + 9 : setpriv + 20] == [
        "--user",
        "--map-current-user",
        "--keep-caps",
        "--",
        "/usr/bin/setpriv",
        "--bounding-set=-all",
        "--inh-caps=-all",
        "--ambient-caps=-all",
        "--",
        "/usr/bin/prlimit",
        "--cpu=10:11",
    ]
    assert argv[-2:] == ["/usr/bin/python3", "/run/codexec/main.py"]
    assert pairs(argv, "--cap-add") == ["CAP_DAC_READ_SEARCH", "CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"]


def test_without_a_per_sandbox_user_namespace_the_program_runs_straight_after_setpriv() -> None:
    argv = argv_of(plan(inner_userns=False))
    assert "/usr/bin/unshare" not in argv


def test_a_non_root_server_lets_bubblewrap_make_the_user_namespace_and_forbids_nested_ones() -> None:
    argv = argv_of(plan(running_as_root=False, uid=1000, gid=1000))
    assert "--unshare-user" in argv and "--disable-userns" in argv
    assert "--cap-add" not in argv and "--reuid=1000" not in " ".join(argv)
    setpriv = argv.index("/usr/bin/setpriv")
    assert argv[setpriv : setpriv + 4] == ["/usr/bin/setpriv", "--no-new-privs", "--", "/usr/bin/prlimit"]


def test_the_network_is_unshared_unless_the_owner_enabled_it() -> None:
    assert "--unshare-net" in argv_of(plan())
    assert "--unshare-net" not in argv_of(plan(network=True))


def test_the_sandbox_sees_the_system_read_only_and_only_its_own_folder_writable() -> None:
    argv = argv_of(plan(wheels_dir=Path("/srv/wheels")))
    assert pairs(argv, "--bind") == ["/data/codexec/sandbox"]
    assert pairs(argv, "--ro-bind") == ["/usr", "/data/codexec/host/passwd", "/tmp/c1", "/srv/wheels"]
    assert pairs(argv, "--symlink") == ["usr/bin"]
    assert pairs(argv, "--chdir") == ["/sandbox/run-1"]
    for namespace in ("--unshare-ipc", "--unshare-pid", "--unshare-uts", "--die-with-parent", "--new-session"):
        assert namespace in argv
    assert (
        pairs(argv, "--tmpfs") == ["/tmp"] and pairs(argv, "--proc") == ["/proc"] and pairs(argv, "--dev") == ["/dev"]
    )


def test_the_environment_is_rebuilt_from_nothing_and_bubblewrap_itself_gets_only_a_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANNABELLE_TOKEN", "secret-token")
    p = plan()
    env = sandbox_env(p, view(p, SPEC.code_dir))
    argv = build_argv(p, SPEC, env)
    assert "--clearenv" in argv
    assert "secret-token" not in " ".join(argv)
    assert env["HOME"] == "/tmp" and env["PYTHONPATH"] == "/sandbox/.packages/python"
    assert env["NODE_PATH"] == "/sandbox/.packages/node/node_modules"
    assert not any(key.startswith("ANNABELLE") for key in env)
    assert launcher_env(p, env) == {"PATH": "/usr/local/bin:/usr/bin:/bin"}


def test_limits_only_mode_runs_setpriv_then_prlimit_in_the_host_folder_with_host_paths() -> None:
    p = plan(isolation="limits-only", tools=HostTools(prlimit="/usr/bin/prlimit", setpriv="/usr/bin/setpriv"))
    env = sandbox_env(p, view(p, SPEC.code_dir))
    argv = build_argv(p, SPEC, env)
    assert argv[0] == "/usr/bin/setpriv" and "--reuid=65534" in argv
    assert "/usr/bin/bwrap" not in argv
    assert host_cwd(p, SPEC) == "/data/codexec/sandbox/run-1"
    assert env["PYTHONPATH"] == "/data/codexec/sandbox/.packages/python"
    assert env["HOME"] == "/tmp"
    assert launcher_env(p, env) == env


def test_a_bwrap_plan_without_the_bwrap_program_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="bwrap"):
        argv_of(plan(tools=HostTools(prlimit="/usr/bin/prlimit", setpriv="/usr/bin/setpriv")))


def test_the_sandbox_passwd_names_only_root_and_the_sandbox_user() -> None:
    passwd, group = passwd_entries(65534, 65534)
    assert [line.split(":")[0] for line in passwd.splitlines()] == ["root", "sandbox"]
    assert "sandbox:x:65534:65534" in passwd and "sandbox:x:65534:" in group


@pytest.mark.parametrize(
    ("raw", "parts"),
    [
        ("project-a", ("project-a",)),
        ("data/jan", ("data", "jan")),
        ("./data//jan/", ("data", "jan")),
        ("/sandbox/data", ("data",)),
        ("/sandbox/data/v1.2_x", ("data", "v1.2_x")),
        (" reports ", ("reports",)),
    ],
)
def test_a_working_dir_is_a_folder_path_inside_the_sandbox(raw: str, parts: tuple[str, ...]) -> None:
    assert parse_working_dir(raw) == parts


@pytest.mark.parametrize(
    "raw",
    [
        "/etc",
        "/sandboxes/x",
        "~/x",
        "../outside",
        "data/../../etc",
        "..",
        ".packages",
        "-rf",
        "a b",
        "a\\b",
        "data/\x00",
        "é",
        "x" * 65,
        "/".join(["d"] * 9),
        "",
        "/sandbox",
        ".",
    ],
)
def test_anything_else_is_refused_with_a_sentence(raw: str) -> None:
    with pytest.raises(BadWorkingDir):
        parse_working_dir(raw)


HOME = Path("/home/ann/.annabelle")
USER = Path("/home/ann")


@pytest.mark.parametrize(
    ("path", "writable", "problem"),
    [
        ("/home/ann/.annabelle/codexec/sandbox", True, None),
        ("/srv/sandbox", True, None),
        ("/opt/node", False, None),
        ("/home/ann/projects/wheels", False, None),
        ("/", False, "root folder"),
        ("/home", True, "ANNABELLE_HOME"),
        ("/home/ann", False, "ANNABELLE_HOME"),
        ("/home/ann/.annabelle", True, "ANNABELLE_HOME"),
        ("/home/ann/.annabelle/data", True, ".annabelle/data"),
        ("/home/ann/.annabelle/logs/x", False, ".annabelle/logs"),
        ("/home/ann/.ssh", False, ".ssh"),
        ("/home/ann/.aws/creds", False, ".aws"),
        ("/home/ann/.config/x", False, ".config"),
        ("/etc", True, "/etc"),
        ("/usr/local/share", True, "/usr"),
        ("/etc/ssl", False, None),
    ],
)
def test_folders_shown_to_the_sandbox_never_hold_the_assistants_data_or_the_users_secrets(
    path: str, writable: bool, problem: str | None
) -> None:
    found = path_problem(Path(path), what="X", annabelle_home=HOME, user_home=USER, writable=writable)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found
