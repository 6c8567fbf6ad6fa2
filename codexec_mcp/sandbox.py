"""Pure sandbox decisions: which command line runs a program, in which environment, seeing which files.

Two isolation modes (`CODEXEC_ISOLATION`):

- `bwrap` (default): bubblewrap gives the program its own mount, PID, network, IPC and UTS namespaces. Its
  filesystem is a fresh root holding only the system folders (read-only), a few files of /etc, a private /tmp,
  /proc of its own PID namespace, a minimal /dev, the code folder (read-only) and the sandbox folder
  (read-write). When the process that builds the sandbox is root, bubblewrap runs privileged and the program
  is switched to an unprivileged uid (`setpriv`) inside a user namespace of its own (`unshare --user`), so
  the kernel counts its processes per sandbox and it holds no capability anywhere. Otherwise bubblewrap makes
  the user namespace itself and forbids nested ones.
- `limits-only`: no namespaces (a host that forbids them, such as a container without user namespaces). The
  program still gets the resource limits, an unprivileged uid when the server is root, a minimal environment
  and its own process group, but it sees the host's filesystem and network. The server says so loudly.

Whatever the mode, the last steps are `prlimit` (the kernel limits of `limits.Limits`) and the interpreter.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from codexec_mcp.limits import MIB, Limits, prlimit_args

Isolation = Literal["bwrap", "limits-only"]

SANDBOX_MOUNT = "/sandbox"
CODE_MOUNT = "/run/codexec"
WHEELS_MOUNT = "/run/wheels"
SANDBOX_PATH_DIRS = ("/usr/local/bin", "/usr/bin", "/bin")
SANDBOX_USER = "sandbox"
PACKAGES_DIR = ".packages"


@dataclass(frozen=True)
class Mount:
    """One step of the sandbox's filesystem: `ro` binds a host path read-only, `symlink` recreates a link
    (merged-/usr systems link /bin to usr/bin), `file` binds a host file read-only at another path."""

    kind: Literal["ro", "symlink", "file"]
    source: str
    destination: str

    def args(self) -> list[str]:
        if self.kind == "symlink":
            return ["--symlink", self.source, self.destination]
        return ["--ro-bind", self.source, self.destination]


@dataclass(frozen=True)
class HostTools:
    """Absolute paths of the host programs the command line uses."""

    prlimit: str
    setpriv: str
    bwrap: str | None = None
    unshare: str | None = None


@dataclass(frozen=True)
class SandboxPlan:
    """Everything about the host that shapes a sandbox, found once at start-up (see `host.probe`)."""

    isolation: Isolation
    tools: HostTools
    sandbox_root: Path
    running_as_root: bool
    uid: int
    gid: int
    network: bool = False
    inner_userns: bool = True
    tmp_mb: int = 64
    system_mounts: tuple[Mount, ...] = ()
    etc_mounts: tuple[Mount, ...] = ()
    wheels_dir: Path | None = None


@dataclass(frozen=True)
class View:
    """Paths as the sandboxed program sees them (inside bubblewrap they differ from the host's)."""

    root: str
    code: str
    wheels: str | None

    def workdir(self, parts: Sequence[str]) -> str:
        return "/".join([self.root, *parts])

    @property
    def python_packages(self) -> str:
        return f"{self.root}/{PACKAGES_DIR}/python"

    @property
    def node_prefix(self) -> str:
        return f"{self.root}/{PACKAGES_DIR}/node"


@dataclass(frozen=True)
class RunSpec:
    """One program to run: its argv in the sandbox's terms, where, and under which limits."""

    command: list[str]
    workdir: tuple[str, ...]
    code_dir: Path
    limits: Limits
    env: Mapping[str, str] = field(default_factory=dict)


def view(plan: SandboxPlan, code_dir: Path) -> View:
    if plan.isolation == "bwrap":
        return View(SANDBOX_MOUNT, CODE_MOUNT, WHEELS_MOUNT if plan.wheels_dir else None)
    return View(str(plan.sandbox_root), str(code_dir), str(plan.wheels_dir) if plan.wheels_dir else None)


def sandbox_env(plan: SandboxPlan, paths: View, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The whole environment of a sandboxed program: nothing is inherited from the server, so no token, key or
    `ANNABELLE_*` variable can reach it."""
    home = "/tmp"  # bwrap: the private tmpfs; limits-only: the host's, the one place the sandbox uid may write
    env = {
        "PATH": ":".join(SANDBOX_PATH_DIRS),
        "HOME": home,
        "TMPDIR": "/tmp",
        "USER": SANDBOX_USER,
        "LOGNAME": SANDBOX_USER,
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "PYTHONPATH": paths.python_packages,
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "NODE_PATH": f"{paths.node_prefix}/node_modules",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_NO_INPUT": "1",
        "npm_config_update_notifier": "false",
        "npm_config_cache": f"{home}/.npm",
    }
    env.update(extra or {})
    return env


def privilege_drop(plan: SandboxPlan) -> list[str]:
    """`setpriv` in front of the program: when the server is root, become the sandbox uid with no supplementary
    group and no capability; always forbid gaining privileges again (set-uid files do nothing)."""
    if not plan.running_as_root:
        return [plan.tools.setpriv, "--no-new-privs", "--"]
    return [
        plan.tools.setpriv,
        f"--reuid={plan.uid}",
        f"--regid={plan.gid}",
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--no-new-privs",
        "--",
    ]


def build_argv(plan: SandboxPlan, spec: RunSpec, env: Mapping[str, str], info_fd: int | None = None) -> list[str]:
    """The full command line of one sandboxed run. `info_fd`: where bubblewrap reports the host pid of its PID
    namespace's init (see `process.NamespaceWatch`)."""
    tail = [plan.tools.prlimit, *prlimit_args(spec.limits), "--", *spec.command]
    if plan.isolation == "limits-only":
        return [*privilege_drop(plan), *tail]
    if plan.tools.bwrap is None:
        raise ValueError("bwrap isolation needs the bwrap program")
    paths = view(plan, spec.code_dir)
    argv = [plan.tools.bwrap, "--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try"]
    if not plan.network:
        argv.append("--unshare-net")
    if not plan.running_as_root:
        argv += ["--unshare-user", "--disable-userns"]
    argv += ["--die-with-parent", "--new-session", "--hostname", "sandbox"]
    if info_fd is not None:
        argv += ["--info-fd", str(info_fd)]
    if plan.running_as_root:
        # Only what the moment before setpriv needs: entering the working folder (private to the sandbox user)
        # and switching to that user. setpriv's change of uid then clears these too.
        argv += ["--cap-drop", "ALL"]
        for capability in ("CAP_DAC_READ_SEARCH", "CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"):
            argv += ["--cap-add", capability]
    for mount in plan.system_mounts:
        argv += mount.args()
    for mount in plan.etc_mounts:
        argv += mount.args()
    argv += ["--proc", "/proc", "--dev", "/dev"]
    argv += ["--size", str(plan.tmp_mb * MIB), "--perms", "1777", "--tmpfs", "/tmp"]
    # bubblewrap makes missing parents of a mount point 0700 root: /run must be listable by the sandbox user.
    argv += ["--perms", "0755", "--dir", "/run"]
    argv += ["--bind", str(plan.sandbox_root), SANDBOX_MOUNT]
    argv += ["--ro-bind", str(spec.code_dir), CODE_MOUNT]
    if plan.wheels_dir is not None:
        argv += ["--ro-bind", str(plan.wheels_dir), WHEELS_MOUNT]
    argv += ["--chdir", paths.workdir(spec.workdir), "--clearenv"]
    for key, value in env.items():
        argv += ["--setenv", key, value]
    argv += privilege_drop(plan)
    if plan.running_as_root and plan.inner_userns and plan.tools.unshare:
        # A new user namespace starts with a full capability bounding set: keep the namespace's capabilities
        # just long enough for setpriv to empty it, then drop them all (the next exec leaves none).
        argv += [plan.tools.unshare, "--user", "--map-current-user", "--keep-caps", "--"]
        argv += [plan.tools.setpriv, "--bounding-set=-all", "--inh-caps=-all", "--ambient-caps=-all", "--"]
    return [*argv, *tail]


def host_cwd(plan: SandboxPlan, spec: RunSpec) -> str | None:
    """Where the runner starts the process: bubblewrap changes directory itself (inside its own view)."""
    if plan.isolation == "bwrap":
        return None
    return str(plan.sandbox_root.joinpath(*spec.workdir))


def launcher_env(plan: SandboxPlan, env: Mapping[str, str]) -> dict[str, str]:
    """The environment the runner starts the first program with: bubblewrap gets only PATH and clears even
    that for the program; in limits-only mode the program's own environment is passed straight through."""
    if plan.isolation == "bwrap":
        return {"PATH": ":".join(SANDBOX_PATH_DIRS)}
    return dict(env)


def passwd_entries(uid: int, gid: int) -> tuple[str, str]:
    """The /etc/passwd and /etc/group the sandbox sees: its own user and nothing about the host's."""
    return (
        f"root:x:0:0:root:/root:/usr/sbin/nologin\n{SANDBOX_USER}:x:{uid}:{gid}:sandbox:/tmp:/bin/sh\n",
        f"root:x:0:\n{SANDBOX_USER}:x:{gid}:\n",
    )


HOSTS_OFFLINE = "127.0.0.1\tlocalhost sandbox\n::1\tlocalhost ip6-localhost ip6-loopback\n"


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def path_problem(path: Path, *, what: str, annabelle_home: Path, user_home: Path, writable: bool) -> str | None:
    """Why a folder must not be shown to the sandbox, or None. Nothing that holds the assistant's data or the
    user's home may be seen (the token, keys, ~/.ssh …); a writable folder must also not be a system one."""
    path = Path(path)
    if path == Path("/"):
        return f"{what} cannot be the root folder /."
    for guarded, name in ((annabelle_home, "ANNABELLE_HOME"), (user_home, "the home folder")):
        if _inside(guarded, path):
            return f"{what} ({path}) would expose {name} ({guarded}) to sandboxed code."
    for secret in (".ssh", ".gnupg", ".aws", ".config", ".netrc", ".docker", ".kube"):
        if _inside(path, user_home / secret):
            return f"{what} ({path}) is inside {user_home / secret}, which sandboxed code must never see."
    protected = [annabelle_home / "data", annabelle_home / "logs", annabelle_home / "annabelle.token"]
    if writable:
        protected += [Path(p) for p in ("/etc", "/usr", "/bin", "/sbin", "/lib", "/boot", "/proc", "/sys", "/dev")]
    for guarded in protected:
        if _inside(path, guarded):
            return f"{what} ({path}) is inside {guarded}, which sandboxed code must never reach."
    return None


_FOLDER_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$")
MAX_WORKDIR_DEPTH = 8


class BadWorkingDir(ValueError):
    """`working_dir` is not a folder name inside the sandbox; the message says what is accepted."""


def parse_working_dir(value: str) -> tuple[str, ...]:
    """A `working_dir` as folder names below the sandbox folder. It may be written relative ('data/jan') or
    as the sandbox sees it ('/sandbox/data/jan'); anything else absolute, '..', hidden names and odd
    characters are refused, so the server never has to resolve a path the code chose."""
    text = value.strip()
    if text == SANDBOX_MOUNT or text.startswith(SANDBOX_MOUNT + "/"):
        text = text[len(SANDBOX_MOUNT) :]
    elif text.startswith(("/", "~")):
        raise BadWorkingDir(
            f"working_dir '{value[:80]}' is outside the sandbox: give a folder inside it, e.g. 'project-a' "
            f"(seen by the code as {SANDBOX_MOUNT}/project-a)."
        )
    parts = tuple(part for part in text.split("/") if part not in ("", "."))
    if not parts:
        raise BadWorkingDir("working_dir is empty: give a folder name such as 'project-a', or leave it out.")
    if len(parts) > MAX_WORKDIR_DEPTH:
        raise BadWorkingDir(f"working_dir may be at most {MAX_WORKDIR_DEPTH} folders deep.")
    for part in parts:
        if not _FOLDER_NAME.match(part):
            raise BadWorkingDir(
                f"'{part[:80]}' in working_dir is not allowed: use letters, digits, '_', '-' and '.', not starting "
                "with '.' or '-', at most 64 characters per folder."
            )
    return parts
