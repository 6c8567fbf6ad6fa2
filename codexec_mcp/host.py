"""The host side of the sandbox: finding the tools, building the plan, proving it works, and touching the
sandbox folder safely.

Sandboxed code controls everything below the sandbox folder, so the server never follows a path there:
every folder is opened one component at a time with `O_NOFOLLOW` relative to its parent's descriptor, and a
symbolic link where a folder should be is refused. Nothing here reads or writes a file's contents.
"""

from __future__ import annotations

import contextlib
import glob
import logging
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from codexec_mcp.languages import INTERPRETERS, Language, find_interpreter, node_flags
from codexec_mcp.limits import Limits
from codexec_mcp.sandbox import (
    HOSTS_OFFLINE,
    PACKAGES_DIR,
    SANDBOX_PATH_DIRS,
    HostTools,
    Mount,
    RunSpec,
    SandboxPlan,
    build_argv,
    host_cwd,
    launcher_env,
    passwd_entries,
    path_problem,
    sandbox_env,
    view,
)
from codexec_mcp.settings import CodexecSettings
from shared.private_files import private_dir

log = logging.getLogger(__name__)

SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# What of /etc programs commonly read (libraries, certificates, time zone, Debian's python config); never
# passwd, shadow, the machine's hostname or anything with credentials (pip.conf, .netrc …).
ETC_ENTRIES = (
    "alternatives",
    "ca-certificates",
    "ca-certificates.conf",
    "debian_version",
    "os-release",
    "gai.conf",
    "host.conf",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "locale.alias",
    "mime.types",
    "nsswitch.conf",
    "protocols",
    "services",
    "ssl",
    "timezone",
    "python3",
    "python3.*",
)
NETWORK_ETC_ENTRIES = ("resolv.conf", "hosts")
PROBE_TIMEOUT_SECONDS = 20
LIMITS_ONLY_WARNING = (
    "CODEXEC_ISOLATION=limits-only: this code ran with resource limits and a clean environment but WITHOUT "
    "filesystem or network isolation; it could read whatever the sandbox user can read and reach the network."
)


class SandboxUnavailable(Exception):
    """The configured isolation cannot work on this host; the message says why and what to do."""


@dataclass(frozen=True)
class Interpreters:
    paths: dict[Language, str | None]
    node_flags: tuple[str, ...] = ()
    npm: str | None = None


@dataclass(frozen=True)
class Host:
    """The ready sandbox: its plan, the interpreters it can run, and where its private files are."""

    plan: SandboxPlan
    interpreters: Interpreters
    state_dir: Path
    warning: str | None = None

    def command(self, spec: RunSpec, info_fd: int | None = None) -> Launch:
        return launch(self.plan, spec, info_fd if self.plan.isolation == "bwrap" else None)


@dataclass(frozen=True)
class Launch:
    """How the runner starts one sandboxed program: argv, its starting environment, its working directory."""

    argv: list[str]
    env: dict[str, str]
    cwd: str | None


def launch(plan: SandboxPlan, spec: RunSpec, info_fd: int | None = None) -> Launch:
    env = sandbox_env(plan, view(plan, spec.code_dir), spec.env)
    return Launch(build_argv(plan, spec, env, info_fd), launcher_env(plan, env), host_cwd(plan, spec))


def _which(
    name: str, folders: Sequence[str] = ("/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin")
) -> str | None:
    return find_interpreter(name, folders, _is_executable)


def _is_executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def system_mounts(extra: Sequence[str]) -> tuple[Mount, ...]:
    mounts: list[Mount] = []
    for folder in (*SYSTEM_FOLDERS, *extra):
        if os.path.islink(folder):
            mounts.append(Mount("symlink", os.readlink(folder), folder))
        elif os.path.isdir(folder):
            mounts.append(Mount("ro", folder, folder))
    return tuple(mounts)


def _world_readable(path: str) -> bool:
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        return True
    needed = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(info.st_mode) else 0)
    return info.st_mode & needed == needed and (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode))


def give_to_sandbox(path: Path, uid: int, gid: int) -> None:
    """Make what the sandbox must read its own: private modes (0700 folders, 0600 files, like everything under
    ANNABELLE_HOME) and, when the server is root, the sandbox user as owner. Links are left as they are."""
    for folder, folders, files in os.walk(path):
        for name in [*folders, *files]:
            item = os.path.join(folder, name)
            if os.path.islink(item):
                continue
            os.chmod(item, 0o700 if os.path.isdir(item) else 0o600)
            if os.geteuid() == 0:
                os.chown(item, uid, gid)
    os.chmod(path, 0o700)
    if os.geteuid() == 0:
        os.chown(path, uid, gid)


def _copy_entry(source: str, target: Path) -> None:
    """Copy a file, a link (as a link: it resolves inside the sandbox) or a folder, leaving out whatever not
    everyone may read (/etc/ssl/private)."""
    if not _world_readable(source):
        return
    if os.path.islink(source):
        os.symlink(os.readlink(source), target)
    elif os.path.isdir(source):
        target.mkdir()
        for name in sorted(os.listdir(source)):
            _copy_entry(os.path.join(source, name), target / name)
    else:
        shutil.copyfile(source, target)


def build_etc(state_dir: Path, uid: int, gid: int, *, network: bool, source: Path = Path("/etc")) -> Path:
    """The sandbox's /etc, rebuilt at every start as one folder (one read-only mount instead of two dozen,
    which halves bubblewrap's set-up time): its own passwd and group, copies of the listed host entries, and for
    name lookups either a hosts file that knows only localhost or, with the network on, the host's resolver
    files as they are at start. It belongs to the sandbox user, who reads it through a read-only mount."""
    private_dir(state_dir)
    fresh = Path(tempfile.mkdtemp(prefix="etc.", dir=state_dir))
    passwd, group = passwd_entries(uid, gid)
    written = {"passwd": passwd, "group": group}
    if not network:
        written["hosts"] = HOSTS_OFFLINE
    for name, text in written.items():
        (fresh / name).write_text(text, encoding="utf-8")
    patterns = (*ETC_ENTRIES, *(NETWORK_ETC_ENTRIES if network else ()))
    for pattern in patterns:
        for found in sorted(glob.glob(str(source / pattern))):
            name = os.path.basename(found)
            if name in written or (fresh / name).exists():
                continue
            if name in NETWORK_ETC_ENTRIES and os.path.islink(found):
                found = os.path.realpath(found)  # resolv.conf often links into /run, which the sandbox lacks
            _copy_entry(found, fresh / name)
    give_to_sandbox(fresh, uid, gid)
    target = state_dir / "etc"
    if target.exists():
        old = state_dir / f"etc.old.{os.getpid()}"
        os.replace(target, old)
        shutil.rmtree(old, ignore_errors=True)
    os.replace(fresh, target)
    return target


def build_host(settings: CodexecSettings) -> Host:
    """Find the tools, write the sandbox's private files, prove that a sandbox starts; `SandboxUnavailable`
    says what to do when it cannot."""
    home = settings.annabelle_home
    user_home = Path.home()
    problems = [
        path_problem(
            settings.sandbox_dir, what="CODEXEC_SANDBOX_DIR", annabelle_home=home, user_home=user_home, writable=True
        )
    ]
    if settings.codexec_pip_find_links is not None:
        problems.append(
            path_problem(
                settings.codexec_pip_find_links,
                what="CODEXEC_PIP_FIND_LINKS",
                annabelle_home=home,
                user_home=user_home,
                writable=False,
            )
        )
    for extra in settings.readonly_paths:
        problems.append(
            path_problem(
                Path(extra), what="CODEXEC_READONLY_PATHS", annabelle_home=home, user_home=user_home, writable=False
            )
        )
    found = [problem for problem in problems if problem]
    if found:
        raise SandboxUnavailable(" ".join(found))

    prlimit, setpriv = _which("prlimit"), _which("setpriv")
    if prlimit is None or setpriv is None:
        raise SandboxUnavailable(
            "The sandbox needs prlimit and setpriv (Debian/Ubuntu package util-linux), which are missing."
        )
    root = os.geteuid() == 0
    uid, gid = (settings.codexec_sandbox_uid, settings.codexec_sandbox_gid) if root else (os.getuid(), os.getgid())
    state_dir = settings.state_dir
    etc = build_etc(state_dir, uid, gid, network=settings.codexec_network)
    prepare_sandbox_root(settings.sandbox_dir, uid, gid)
    tools = HostTools(prlimit=prlimit, setpriv=setpriv, bwrap=_which("bwrap"), unshare=_which("unshare"))
    plan = SandboxPlan(
        isolation=settings.codexec_isolation,
        tools=tools,
        sandbox_root=settings.sandbox_dir,
        running_as_root=root,
        uid=uid,
        gid=gid,
        network=settings.codexec_network,
        tmp_mb=settings.codexec_tmp_mb,
        system_mounts=system_mounts(settings.readonly_paths),
        etc_mounts=(Mount("ro", str(etc), "/etc"),),
        wheels_dir=settings.codexec_pip_find_links,
    )
    warning = None
    if plan.isolation == "bwrap":
        plan = _prove_bwrap(plan)
    else:
        reason = _try_sandbox(plan)
        if reason is not None:
            raise SandboxUnavailable(f"Even a limits-only run cannot start on this host: {reason}.")
        warning = LIMITS_ONLY_WARNING
        log.warning("codexec runs code WITHOUT a sandbox (CODEXEC_ISOLATION=limits-only): %s", warning)
    return Host(plan=plan, interpreters=find_interpreters(), state_dir=state_dir, warning=warning)


def find_interpreters() -> Interpreters:
    paths: dict[Language, str | None] = {
        language: find_interpreter(name, SANDBOX_PATH_DIRS, _is_executable) for language, name in INTERPRETERS.items()
    }
    flags: list[str] = []
    node = paths["node"]
    if node is not None:
        try:
            version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=10, env={}).stdout
        except (OSError, subprocess.SubprocessError):
            version = ""
        flags = node_flags(version)
    npm = find_interpreter("npm", SANDBOX_PATH_DIRS, _is_executable)
    return Interpreters(paths=paths, node_flags=tuple(flags), npm=npm)


def _prove_bwrap(plan: SandboxPlan) -> SandboxPlan:
    """Start one empty sandbox the way every run will. Root first tries the per-sandbox user namespace (each
    sandbox counts its own processes) and falls back to sharing the process limit with a warning."""
    if plan.tools.bwrap is None:
        raise SandboxUnavailable(
            "bubblewrap is not installed, so code cannot be sandboxed. Install it (Debian/Ubuntu: apt-get install "
            "bubblewrap), or set CODEXEC_ISOLATION=limits-only to run code with resource limits only (no filesystem "
            "or network isolation)."
        )
    candidates = [plan]
    if plan.running_as_root:
        candidates = [replace(plan, inner_userns=plan.tools.unshare is not None), replace(plan, inner_userns=False)]
    reasons: list[str] = []
    for candidate in candidates:
        reason = _try_sandbox(candidate)
        if reason is None:
            if candidate.running_as_root and not candidate.inner_userns:
                log.warning(
                    "codexec: no per-sandbox user namespace; the process limit is shared by all sandboxes",
                    extra={"detail": "; ".join(reasons)},
                )
            return candidate
        reasons.append(reason)
    detail = reasons[-1]
    log.error("codexec sandbox unavailable: %s", detail)
    raise SandboxUnavailable(
        f"The sandbox (bubblewrap) cannot start on this host: {detail}. Inside a container this usually means user "
        "namespaces are forbidden (Docker needs e.g. --security-opt seccomp=unconfined and "
        "apparmor=unconfined, or run the hub outside the container). Or set CODEXEC_ISOLATION=limits-only to "
        "run code with resource limits only (no filesystem or network isolation)."
    )


def _try_sandbox(plan: SandboxPlan) -> str | None:
    spec = RunSpec(
        command=["/bin/sh", "-c", "exit 0"],
        workdir=(),
        code_dir=plan.sandbox_root,
        limits=Limits(
            wall_seconds=PROBE_TIMEOUT_SECONDS, cpu_seconds=10, memory_mb=256, max_processes=16, max_file_mb=1
        ),
    )
    start = launch(plan, spec)
    try:
        done = subprocess.run(
            start.argv,
            capture_output=True,
            timeout=PROBE_TIMEOUT_SECONDS,
            env=start.env,
            cwd=start.cwd,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{type(exc).__name__}: {exc}"
    if done.returncode == 0:
        return None
    message = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return (message[-1] if message else f"exit code {done.returncode}")[:300]


# ---------------------------------------------------------------------------------------------------------------
# The sandbox folder, touched without ever following a link planted in it.


def prepare_sandbox_root(root: Path, uid: int, gid: int) -> None:
    """Create the sandbox folder (0700, the sandbox user's when the server is root: it is where that user
    works) and the package folders inside it."""
    if root.is_symlink():
        raise SandboxUnavailable(f"CODEXEC_SANDBOX_DIR ({root}) is a link; give the folder itself.")
    private_dir(root)
    if not root.is_dir():
        raise SandboxUnavailable(f"CODEXEC_SANDBOX_DIR ({root}) is not a folder.")
    os.chmod(root, 0o700)
    if os.geteuid() == 0:
        os.chown(root, uid, gid, follow_symlinks=False)
    for language in ("python", "node"):
        ensure_folder(root, (PACKAGES_DIR, language), uid, gid)


class UnsafeFolder(Exception):
    """A folder inside the sandbox is a link or a file; the message names it relative to the sandbox."""


@contextmanager
def open_folder(root: Path, parts: Sequence[str], *, create_as: tuple[int, int] | None = None) -> Iterator[int]:
    """A descriptor of `root/parts…`, opened one component at a time without following links. With
    `create_as` (uid, gid), missing folders are created on the way and, when the server is root, given to
    that user."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for index, part in enumerate(parts):
            created = False
            if create_as is not None:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o700, dir_fd=fd)
                    created = True
            try:
                child = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                name = "/".join(parts[: index + 1])
                raise UnsafeFolder(f"'{name}' in the sandbox is not a folder (a link or a file is there).") from exc
            if created and create_as is not None and os.geteuid() == 0:
                os.fchown(child, *create_as)
            os.close(fd)
            fd = child
        yield fd
    finally:
        os.close(fd)


def ensure_folder(root: Path, parts: Sequence[str], uid: int, gid: int) -> None:
    """Create `root/parts…` as needed; new folders belong to the sandbox user (when the server is root)."""
    with open_folder(root, parts, create_as=(uid, gid)):
        pass


def remove_if_empty(root: Path, parts: Sequence[str]) -> bool:
    """Remove a run's own folder when the code left nothing in it (rmdir never follows or empties anything)."""
    if not parts:
        return False
    try:
        with open_folder(root, parts[:-1]) as parent:
            os.rmdir(parts[-1], dir_fd=parent)
    except (OSError, UnsafeFolder):
        return False
    return True


Snapshot = dict[str, tuple[int, int]]
MAX_SNAPSHOT_ENTRIES = 2000


def snapshot(root: Path, parts: Sequence[str]) -> Snapshot:
    """Name → (size, mtime) of the regular files directly in a folder (the original's artifact rule), at most
    `MAX_SNAPSHOT_ENTRIES`; links are not followed."""
    found: Snapshot = {}
    try:
        with open_folder(root, parts) as fd, os.scandir(fd) as entries:
            for entry in entries:
                if len(found) >= MAX_SNAPSHOT_ENTRIES:
                    break
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(info.st_mode):
                    found[entry.name] = (info.st_size, info.st_mtime_ns)
    except (OSError, UnsafeFolder):
        return found
    return found


def read_small_file(root: Path, parts: Sequence[str], limit: int = 65536) -> bytes | None:
    """At most `limit` bytes of a regular file inside the sandbox, without following links; None if absent."""
    try:
        with open_folder(root, parts[:-1]) as parent:
            fd = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=parent)
    except (OSError, UnsafeFolder):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, limit)
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------------------------------------------
# Processes


def tree_rss_mb(pid: int) -> float | None:
    """Resident memory of a process and all its descendants (from /proc), in MiB; None if it is gone."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    page_kb = os.sysconf("SC_PAGE_SIZE") // 1024
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        child = int(name)
        children.setdefault(int(fields[1]), []).append(child)
        rss[child] = int(fields[21]) * page_kb
    if pid not in rss:
        return None
    total, stack = 0, [pid]
    while stack:
        current = stack.pop()
        total += rss.get(current, 0)
        stack.extend(children.get(current, []))
    return round(total / 1024, 1)
