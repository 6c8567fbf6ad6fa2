"""CodeExec's per-language and package decisions: interpreters, Node flags, commands, accepted package strings."""

from __future__ import annotations

import pytest

from codexec_mcp.languages import file_command, find_interpreter, missing_interpreter, node_flags, session_command
from codexec_mcp.packages import (
    BadPackage,
    canonical_name,
    install_blocked_reason,
    npm_install_command,
    parse_package,
    pip_install_command,
    pip_installed_version,
)
from codexec_mcp.sandbox import View

PATHS = View(root="/sandbox", code="/run/codexec", wheels=None)


def test_the_first_executable_on_the_sandbox_path_is_the_interpreter() -> None:
    present = {"/usr/bin/python3", "/bin/python3"}
    assert (
        find_interpreter("python3", ["/usr/local/bin", "/usr/bin", "/bin"], present.__contains__) == "/usr/bin/python3"
    )
    assert find_interpreter("node", ["/usr/local/bin", "/usr/bin"], present.__contains__) is None


def test_a_missing_interpreter_is_one_sentence_naming_what_to_install() -> None:
    message = missing_interpreter("node")
    assert message.count(".") <= 3 and "apt-get install nodejs" in message and "restart" in message


@pytest.mark.parametrize(
    ("version", "flags"),
    [
        ("v20.20.2\n", ["--experimental-detect-module"]),
        ("v20.10.0", ["--experimental-detect-module"]),
        ("v22.11.0", ["--experimental-detect-module"]),
        ("v22.12.0", []),
        ("v24.1.0", []),
        ("v20.9.0", []),
        ("v18.19.0", []),
        ("garbage", []),
    ],
)
def test_node_gets_module_detection_only_where_it_exists_and_is_not_yet_the_default(
    version: str, flags: list[str]
) -> None:
    assert node_flags(version) == flags


def test_file_and_session_commands() -> None:
    assert file_command("python", "/usr/bin/python3", "/c/main.py", ["a", "b c"]) == [
        "/usr/bin/python3",
        "/c/main.py",
        "a",
        "b c",
    ]
    assert file_command("node", "/usr/bin/node", "/c/main.js", ["x"], ["--flag"]) == [
        "/usr/bin/node",
        "--flag",
        "/c/main.js",
        "x",
    ]
    assert file_command("bash", "/bin/bash", "/c/main.sh", []) == ["/bin/bash", "/c/main.sh"]
    assert session_command("python", "/usr/bin/python3", "/c/d.py") == ["/usr/bin/python3", "-u", "/c/d.py"]
    assert session_command("node", "/usr/bin/node", "/c/d.js") == ["/usr/bin/node", "/c/d.js"]


@pytest.mark.parametrize(
    ("language", "spec", "name"),
    [
        ("python", "pandas", "pandas"),
        ("python", "requests==2.32.3", "requests"),
        ("python", "numpy>=2,<3", "numpy"),
        ("python", "uvicorn[standard]>=0.30", "uvicorn"),
        ("python", "zope.interface", "zope.interface"),
        ("python", " tinypkg ", "tinypkg"),
        ("node", "lodash", "lodash"),
        ("node", "lodash@4.17.21", "lodash"),
        ("node", "@types/node@^20", "@types/node"),
        ("node", "left-pad@latest", "left-pad"),
    ],
)
def test_a_package_is_a_plain_name_with_an_optional_version(language: str, spec: str, name: str) -> None:
    assert parse_package(language, spec) == name  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("language", "spec"),
    [
        ("python", "--index-url=http://evil.example/simple"),
        ("python", "-r /etc/passwd"),
        ("python", "git+https://example.com/x.git"),
        ("python", "pkg @ https://example.com/pkg.whl"),
        ("python", "/tmp/evil.whl"),
        ("python", "./local"),
        ("python", "pkg; python_version<'3'"),
        ("python", "a b"),
        ("python", ""),
        ("node", "Lodash"),
        ("node", "file:../evil"),
        ("node", "github:user/repo"),
        ("node", "https://example.com/x.tgz"),
        ("node", "--global"),
        ("node", "lodash@4 --save"),
        ("node", "../x"),
    ],
)
def test_urls_paths_options_and_markers_are_refused(language: str, spec: str) -> None:
    with pytest.raises(BadPackage, match="is not a package name"):
        parse_package(language, spec)  # type: ignore[arg-type]


def test_pip_installs_into_the_sandbox_package_folder_and_a_local_wheel_folder_replaces_the_index_offline() -> None:
    online = pip_install_command("/usr/bin/python3", "pandas", PATHS, network=True)
    assert online[:4] == ["/usr/bin/python3", "-m", "pip", "install"]
    assert online[online.index("--target") + 1] == "/sandbox/.packages/python"
    assert "--no-index" not in online and online[-1] == "pandas"
    wheels = View(root="/sandbox", code="/run/codexec", wheels="/run/wheels")
    offline = pip_install_command("/usr/bin/python3", "tinypkg", wheels, network=False)
    assert offline[offline.index("--find-links") + 1] == "/run/wheels" and "--no-index" in offline
    both = pip_install_command("/usr/bin/python3", "tinypkg", wheels, network=True)
    assert "--find-links" in both and "--no-index" not in both


def test_npm_installs_under_the_sandbox_node_prefix() -> None:
    command = npm_install_command("/usr/bin/npm", "lodash@4", PATHS)
    assert command[:4] == ["/usr/bin/npm", "install", "--prefix", "/sandbox/.packages/node"]
    assert command[-1] == "lodash@4"


@pytest.mark.parametrize(
    ("output", "name", "version"),
    [
        ("Successfully installed tinypkg-1.0", "tinypkg", "1.0"),
        ("Successfully installed certifi-2024.2.2 requests-2.32.3 urllib3-2.2.1", "requests", "2.32.3"),
        ("Successfully installed zope.interface-6.2", "zope-interface", "6.2"),
        ("Successfully installed Typing_Extensions-4.12.0", "typing-extensions", "4.12.0"),
        ("Requirement already satisfied: tinypkg", "tinypkg", None),
        ("Successfully installed other-1.0", "tinypkg", None),
    ],
)
def test_the_installed_version_is_read_from_pips_summary_line(output: str, name: str, version: str | None) -> None:
    assert pip_installed_version(output, name) == version


def test_package_names_compare_as_pep_503_says() -> None:
    assert canonical_name("Zope.Interface") == canonical_name("zope_interface") == "zope-interface"


@pytest.mark.parametrize(
    ("language", "network", "wheels", "blocked"),
    [
        ("python", False, False, True),
        ("python", False, True, False),
        ("python", True, False, False),
        ("node", False, True, True),
        ("node", True, False, False),
    ],
)
def test_installing_needs_the_network_unless_python_wheels_are_local(
    language: str, network: bool, wheels: bool, blocked: bool
) -> None:
    reason = install_blocked_reason(language, network=network, has_wheels=wheels)  # type: ignore[arg-type]
    assert (reason is not None) == blocked
    if reason:
        assert "CODEXEC_NETWORK=true" in reason and "needs the network" in reason
        assert ("CODEXEC_PIP_FIND_LINKS" in reason) == (language == "python")
