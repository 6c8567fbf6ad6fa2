"""The CodeExec operations, one method per tool: validate, run in the sandbox, translate into results.

The server builds one `CodeExec` in its lifespan. When the sandbox cannot work on this host, `host` is None
and every tool that runs code answers with `problem` (what to install or set); the script library still works.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path

from codexec_mcp.host import (
    Host,
    UnsafeFolder,
    ensure_folder,
    give_to_sandbox,
    read_small_file,
    remove_if_empty,
    snapshot,
    tree_rss_mb,
)
from codexec_mcp.languages import (
    DRIVERS,
    EXTENSIONS,
    Language,
    PackageLanguage,
    SessionLanguage,
    file_command,
    missing_interpreter,
    session_command,
)
from codexec_mcp.limits import Limits, OutputCapture, clamp_timeout_ms, describe_exit, truncate_text
from codexec_mcp.models import (
    Artifacts,
    ExecutionResult,
    PackageInstalled,
    ScriptContent,
    ScriptDeleted,
    ScriptList,
    ScriptRunResult,
    ScriptSaved,
    ScriptSavedAndRun,
    SessionClosed,
    SessionExecResult,
    SessionInfo,
    SessionList,
    SessionStarted,
)
from codexec_mcp.packages import (
    BadPackage,
    install_blocked_reason,
    npm_install_command,
    parse_package,
    pip_install_command,
    pip_installed_version,
)
from codexec_mcp.process import NamespaceWatch, Outcome, run_to_completion, spawn
from codexec_mcp.sandbox import PACKAGES_DIR, BadWorkingDir, RunSpec, parse_working_dir, view
from codexec_mcp.scripts import ScriptError, ScriptLibrary
from codexec_mcp.sessions import Launched, SessionError, SessionManager
from codexec_mcp.settings import CodexecSettings
from shared.mcp_tools import InvalidArguments, NotAllowed, ToolFailure

log = logging.getLogger(__name__)

INSTALL_FILE_MB = 512
INSTALL_OUTPUT_TAIL = 1500


def _artifacts(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> Artifacts:
    return Artifacts(
        created=sorted(name for name in after if name not in before),
        modified=sorted(name for name in after if name in before and after[name] != before[name]),
        deleted=sorted(name for name in before if name not in after),
    )


class CodeExec:
    def __init__(
        self,
        settings: CodexecSettings,
        host: Host | None,
        problem: str | None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.host = host
        self.problem = problem
        self.scripts = ScriptLibrary(settings.scripts_dir)
        self._runs = asyncio.Semaphore(settings.codexec_max_concurrent_runs)
        self.sessions = SessionManager(
            self._launch_session,
            max_sessions=settings.codexec_max_sessions,
            idle_seconds=settings.codexec_session_idle_minutes * 60,
            grace_seconds=settings.codexec_kill_grace_seconds,
            max_output_bytes=settings.codexec_max_output_bytes,
            head_chars=settings.codexec_truncation_head,
            tail_chars=settings.codexec_truncation_tail,
            clock=clock,
        )

    # ---------------------------------------------------------------------------------------------------------
    # Helpers

    def _host(self) -> Host:
        if self.host is None:
            raise ToolFailure(self.problem or "The sandbox is not available; the server log says why.")
        return self.host

    def _interpreter(self, language: Language) -> str:
        path = self._host().interpreters.paths.get(language)
        if path is None:
            raise ToolFailure(missing_interpreter(language))
        return path

    def _render(self, capture: OutputCapture) -> tuple[str, bool]:
        s = self.settings
        return capture.render(s.codexec_max_output_chars, s.codexec_truncation_head, s.codexec_truncation_tail)

    def _limits(self, timeout_ms: int, cpu_seconds: int | None = None, file_mb: int | None = None) -> Limits:
        s = self.settings
        return Limits(
            wall_seconds=timeout_ms / 1000,
            cpu_seconds=cpu_seconds or s.codexec_cpu_seconds,
            memory_mb=s.codexec_memory_mb,
            max_processes=s.codexec_max_processes,
            max_file_mb=file_mb or s.codexec_max_file_mb,
            max_output_bytes=s.codexec_max_output_bytes,
        )

    def _timeout_ms(self, requested: int | None) -> int:
        s = self.settings
        return clamp_timeout_ms(requested, s.codexec_default_timeout_ms, s.codexec_max_timeout_ms)

    def _workdir(self, working_dir: str | None, fresh: str) -> tuple[tuple[str, ...], bool]:
        if working_dir is None or not working_dir.strip():
            return (fresh,), True
        try:
            return parse_working_dir(working_dir), False
        except BadWorkingDir as exc:
            raise InvalidArguments(str(exc)) from None

    def _ensure(self, host: Host, parts: Sequence[str]) -> None:
        try:
            ensure_folder(host.plan.sandbox_root, parts, host.plan.uid, host.plan.gid)
        except UnsafeFolder as exc:
            raise NotAllowed(str(exc)) from None

    async def _run(self, host: Host, spec: RunSpec) -> Outcome:
        watch = NamespaceWatch() if host.plan.isolation == "bwrap" else None
        start = host.command(spec, watch.write_end if watch else None)
        return await run_to_completion(
            start.argv,
            start.env,
            start.cwd,
            spec.limits,
            head_chars=self.settings.codexec_truncation_head,
            tail_chars=self.settings.codexec_truncation_tail,
            grace_seconds=self.settings.codexec_kill_grace_seconds,
            watch=watch,
        )

    @staticmethod
    def _code_dir(host: Host, files: dict[str, str]) -> Path:
        """A private folder the sandbox reads the code from (read-only there), the sandbox user's own."""
        folder = Path(tempfile.mkdtemp(prefix="codexec-"))
        for name, text in files.items():
            # A lone surrogate (valid in JSON) cannot be written as UTF-8: it becomes '?'.
            (folder / name).write_text(text, encoding="utf-8", errors="replace")
        give_to_sandbox(folder, host.plan.uid, host.plan.gid)
        return folder

    # ---------------------------------------------------------------------------------------------------------
    # One-shot runs

    async def execute_code(
        self,
        language: Language,
        code: str,
        timeout_ms: int | None,
        working_dir: str | None,
        args: Sequence[str] = (),
    ) -> ExecutionResult:
        host = self._host()
        interpreter = self._interpreter(language)
        execution_id = f"exec_{secrets.token_hex(6)}"
        parts, fresh = self._workdir(working_dir, f"run-{execution_id[5:]}")
        self._ensure(host, parts)
        timeout = self._timeout_ms(timeout_ms)
        limits = self._limits(timeout)
        file_name = f"main.{EXTENSIONS[language]}"
        code_dir = self._code_dir(host, {file_name: code})
        paths = view(host.plan, code_dir)
        command = file_command(
            language, interpreter, f"{paths.code}/{file_name}", list(args), host.interpreters.node_flags
        )
        spec = RunSpec(command=command, workdir=parts, code_dir=code_dir, limits=limits)
        root = host.plan.sandbox_root
        before = snapshot(root, parts)
        try:
            async with self._runs:
                outcome = await self._run(host, spec)
        finally:
            shutil.rmtree(code_dir, ignore_errors=True)
        artifacts = _artifacts(before, snapshot(root, parts))
        if fresh and not (artifacts.created or artifacts.modified) and remove_if_empty(root, parts):
            working = ""
        else:
            working = "/".join(parts)
        stdout, cut_out = self._render(outcome.stdout)
        stderr, cut_err = self._render(outcome.stderr)
        exit_info = describe_exit(outcome.returncode, stopped=outcome.stopped, limits=limits)
        log.info(
            "codexec run",
            extra={
                "execution_id": execution_id,
                "language": language,
                "exit_code": exit_info.exit_code,
                "duration_ms": outcome.duration_ms,
                "stopped": outcome.stopped,
                "stdout_bytes": outcome.stdout.total_bytes,
                "stderr_bytes": outcome.stderr.total_bytes,
            },
        )
        return ExecutionResult(
            execution_id=execution_id,
            language=language,
            stdout=stdout,
            stderr=stderr,
            exit_code=exit_info.exit_code,
            duration_ms=outcome.duration_ms,
            timed_out=outcome.stopped == "timeout",
            truncated=cut_out or cut_err,
            artifacts=artifacts,
            working_dir=working,
            isolation=host.plan.isolation,
            note=exit_info.note,
            warning=host.warning,
        )

    # ---------------------------------------------------------------------------------------------------------
    # Sessions

    async def _launch_session(self, language: str, session_id: str, workdir: tuple[str, ...] | None) -> Launched:
        host = self._host()
        lang: SessionLanguage = "node" if language == "node" else "python"
        interpreter = self._interpreter(lang)
        parts = workdir or (f"session-{session_id[5:]}",)
        fresh = workdir is None
        self._ensure(host, parts)
        driver = resources.files("codexec_mcp").joinpath("drivers", DRIVERS[lang]).read_text(encoding="utf-8")
        code_dir = self._code_dir(host, {DRIVERS[lang]: driver})
        paths = view(host.plan, code_dir)
        limits = self._limits(
            self.settings.codexec_max_timeout_ms, cpu_seconds=self.settings.codexec_session_cpu_seconds
        )
        spec = RunSpec(
            command=session_command(lang, interpreter, f"{paths.code}/{DRIVERS[lang]}"),
            workdir=parts,
            code_dir=code_dir,
            limits=limits,
        )
        root = host.plan.sandbox_root

        def cleanup() -> None:
            shutil.rmtree(code_dir, ignore_errors=True)
            if fresh:
                remove_if_empty(root, parts)

        watch = NamespaceWatch() if host.plan.isolation == "bwrap" else None
        start = host.command(spec, watch.write_end if watch else None)
        try:
            process = await spawn(start.argv, start.env, start.cwd, stdin=asyncio.subprocess.PIPE, watch=watch)
        except OSError:
            cleanup()
            raise
        return Launched(process=process, workdir=parts, cleanup=cleanup, watch=watch)

    async def start_session(
        self, language: SessionLanguage, name: str | None, working_dir: str | None
    ) -> SessionStarted:
        host = self._host()
        self._interpreter(language)
        parts = None
        if working_dir is not None and working_dir.strip():
            parts, _ = self._workdir(working_dir, "")
        try:
            session = await self.sessions.start(language, name, parts)
        except SessionError as exc:
            raise ToolFailure(str(exc)) from None
        return SessionStarted(
            session_id=session.session_id,
            language=session.language,
            name=session.name,
            pid=session.pid,
            started_at=session.started_at,
            working_dir="/".join(session.launched.workdir),
            isolation=host.plan.isolation,
            warning=host.warning,
        )

    async def send_to_session(
        self, session_id: str | None, language: SessionLanguage | None, code: str, timeout_ms: int | None
    ) -> SessionExecResult:
        created = False
        if not session_id:
            if language is None:
                raise InvalidArguments("Give session_id, or a language to start a new session with this code.")
            session_id = (await self.start_session(language, None, None)).session_id
            created = True
        try:
            session = self.sessions.get(session_id)
            if language is not None and language != session.language:
                raise InvalidArguments(
                    f"Session '{session_id}' runs {session.language}, not {language}; leave language out or start "
                    "another session."
                )
            timeout = self._timeout_ms(timeout_ms)
            exchange = await self.sessions.send(session_id, code, timeout / 1000)
        except SessionError as exc:
            raise ToolFailure(str(exc)) from None
        stdout, cut_out = self._render(exchange.stdout)
        stderr, cut_err = self._render(exchange.stderr)
        note = {
            "timeout": "The session did not come back after the time limit and was closed; start a new one.",
            "output_limit": "The code wrote more output than allowed; the session was closed.",
            "process_exit": "The session's process ended (exit() or a crash); start a new one.",
        }.get(exchange.closed or "")
        if exchange.timed_out and exchange.closed is None:
            note = f"Interrupted after {timeout / 1000:g} s; the session and its variables are still there."
        return SessionExecResult(
            execution_id=f"exec_{secrets.token_hex(6)}",
            session_id=session_id,
            stdout=stdout,
            stderr=stderr,
            duration_ms=exchange.duration_ms,
            truncated=cut_out or cut_err,
            timed_out=exchange.timed_out,
            session_created=created,
            session_closed=exchange.closed is not None,
            note=note,
        )

    async def close_session(self, session_id: str) -> SessionClosed:
        try:
            closed = await self.sessions.close(session_id)
        except SessionError as exc:
            raise ToolFailure(str(exc)) from None
        return SessionClosed.model_validate(closed, from_attributes=True)

    def list_sessions(self) -> SessionList:
        infos = [
            SessionInfo(
                session_id=session.session_id,
                language=session.language,
                name=session.name,
                pid=session.pid,
                started_at=session.started_at,
                last_activity_at=session.last_activity_at,
                executions_count=session.executions_count,
                packages_installed=list(session.packages_installed),
                memory_mb=tree_rss_mb(session.pid),
                working_dir="/".join(session.launched.workdir),
            )
            for session in self.sessions.sessions()
        ]
        return SessionList(
            sessions=infos,
            max_sessions=self.sessions.max_sessions,
            idle_timeout_minutes=self.settings.codexec_session_idle_minutes,
        )

    # ---------------------------------------------------------------------------------------------------------
    # Packages

    async def install_package(
        self, language: PackageLanguage, package: str, session_id: str | None
    ) -> PackageInstalled:
        try:
            name = parse_package(language, package)
        except BadPackage as exc:
            raise InvalidArguments(str(exc)) from None
        session = None
        if session_id:
            try:
                session = self.sessions.get(session_id)
            except SessionError as exc:
                raise ToolFailure(str(exc)) from None
            if session.language != language:
                raise InvalidArguments(f"Session '{session_id}' runs {session.language}, not {language}.")
        host = self._host()
        blocked = install_blocked_reason(
            language, network=host.plan.network, has_wheels=host.plan.wheels_dir is not None
        )
        if blocked:
            raise NotAllowed(blocked)
        parts = (PACKAGES_DIR, language)
        self._ensure(host, parts)
        self._ensure(host, (PACKAGES_DIR, "tmp"))
        code_dir = self._code_dir(host, {})
        paths = view(host.plan, code_dir)
        if language == "python":
            command = pip_install_command(self._interpreter("python"), package, paths, network=host.plan.network)
        else:
            self._interpreter("node")
            if host.interpreters.npm is None:
                raise ToolFailure(
                    "npm is not installed on this machine; install it (Debian/Ubuntu: apt-get install npm)."
                )
            command = npm_install_command(host.interpreters.npm, package.strip(), paths)
        seconds = self.settings.codexec_install_timeout_seconds
        limits = self._limits(seconds * 1000, cpu_seconds=seconds, file_mb=INSTALL_FILE_MB)
        scratch = f"{paths.root}/{PACKAGES_DIR}/tmp"
        spec = RunSpec(
            command=command,
            workdir=parts,
            code_dir=code_dir,
            limits=limits,
            env={"TMPDIR": scratch, "npm_config_cache": f"{scratch}/npm-cache"},
        )
        try:
            async with self._runs:
                outcome = await self._run(host, spec)
        finally:
            shutil.rmtree(code_dir, ignore_errors=True)
        stdout, _ = self._render(outcome.stdout)
        stderr, _ = self._render(outcome.stderr)
        combined = "\n".join(part for part in (stdout.strip(), stderr.strip()) if part)
        manager = "pip" if language == "python" else "npm"
        if outcome.stopped == "timeout":
            raise ToolFailure(f"{manager} did not finish installing '{package.strip()}' within {seconds} s.")
        if outcome.returncode != 0:
            tail = combined[-INSTALL_OUTPUT_TAIL:]
            raise ToolFailure(f"{manager} could not install '{package.strip()}' (exit {outcome.returncode}): {tail}")
        version = self._installed_version(host, language, name, stdout)
        if session is not None:
            session.packages_installed.append(name)
        log.info("codexec package installed", extra={"language": language, "package": name, "version": version})
        return PackageInstalled(
            package_name=name,
            version=version,
            install_output=truncate_text(combined, 4000, 2000, 2000)[0],
            success=True,
            language=language,
            session_id=session_id or None,
        )

    @staticmethod
    def _installed_version(host: Host, language: str, name: str, stdout: str) -> str | None:
        if language == "python":
            return pip_installed_version(stdout, name)
        raw = read_small_file(
            host.plan.sandbox_root, (PACKAGES_DIR, "node", "node_modules", *name.split("/"), "package.json")
        )
        try:
            version = json.loads(raw or b"{}").get("version")
        except (ValueError, AttributeError):
            return None
        return version if isinstance(version, str) else None

    # ---------------------------------------------------------------------------------------------------------
    # Saved scripts

    def save_script(
        self, name: str, description: str, language: Language, code: str, tags: list[str], packages: list[str]
    ) -> ScriptSaved:
        try:
            metadata, created = self.scripts.save(name, description, language, code, tags, packages)
        except ScriptError as exc:
            raise InvalidArguments(str(exc)) from None
        return ScriptSaved(name=metadata.name, language=metadata.language, created=created)

    def get_script(self, name: str) -> ScriptContent:
        try:
            return self.scripts.get(name)
        except ScriptError as exc:
            raise ToolFailure(str(exc)) from None

    def list_scripts(self, language: Language | None, tag: str | None) -> ScriptList:
        return ScriptList(scripts=self.scripts.list(language, tag))

    def search_scripts(self, query: str) -> ScriptList:
        return ScriptList(scripts=self.scripts.search(query))

    def delete_script(self, name: str) -> ScriptDeleted:
        try:
            return ScriptDeleted(name=self.scripts.delete(name), deleted=True)
        except ScriptError as exc:
            raise ToolFailure(str(exc)) from None

    async def run_script(
        self, name: str, args: list[str], timeout_ms: int | None, working_dir: str | None
    ) -> ScriptRunResult:
        script = self.get_script(name)
        result = await self.execute_code(script.metadata.language, script.code, timeout_ms, working_dir, args)
        self.scripts.record_run(script.metadata.name, result.exit_code == 0 and not result.timed_out)
        return ScriptRunResult(name=script.metadata.name, **result.model_dump())

    async def save_and_run_script(
        self,
        name: str,
        description: str,
        language: Language,
        code: str,
        tags: list[str],
        packages: list[str],
        args: list[str],
        timeout_ms: int | None,
        working_dir: str | None,
    ) -> ScriptSavedAndRun:
        saved = self.save_script(name, description, language, code, tags, packages)
        result = await self.run_script(saved.name, args, timeout_ms, working_dir)
        return ScriptSavedAndRun(created=saved.created, **result.model_dump())
