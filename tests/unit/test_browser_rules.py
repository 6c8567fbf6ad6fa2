"""The browser's pure rules: finding Chromium, its switches, output file names, upload paths, refusals, bounds."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

import pytest

from browser_mcp.chromium import find_executable, install_hint, switches
from browser_mcp.egress import Refusal, refusal_of
from browser_mcp.outputs import OutputRefused, output_name, upload_path, write_output
from browser_mcp.session import REF, bound_text
from browser_mcp.settings import BrowserSettings
from shared.settings import ConfigError, load_settings

NOW = datetime(2026, 2, 14, 15, 1, 2, 123456)


def which_from(found: dict[str, str]):
    return lambda name: found.get(name)


def test_the_first_browser_on_path_is_used():
    which = which_from({"google-chrome": "/opt/chrome", "chromium-browser": "/usr/bin/chromium-browser"})
    assert find_executable(None, which) == Path("/usr/bin/chromium-browser")


def test_a_configured_executable_is_used_only_if_it_is_runnable():
    assert find_executable(Path("/opt/chromium"), which_from({"/opt/chromium": "/opt/chromium"})) == Path(
        "/opt/chromium"
    )
    assert find_executable(Path("/opt/missing"), which_from({"chromium": "/usr/bin/chromium"})) is None


def test_without_a_browser_the_hint_is_one_sentence_naming_the_install_command():
    hint = install_hint(None)
    assert "apt-get install chromium" in hint and "WITH_BROWSER=1" in hint and "BROWSER_EXECUTABLE" in hint
    assert hint.count(". ") == 0 and hint.endswith(".")
    assert "BROWSER_EXECUTABLE is /opt/missing" in install_hint(Path("/opt/missing"))


def test_every_request_goes_through_the_guard_loopback_included():
    args = switches("http://127.0.0.1:4000", sandbox=False)
    assert "--proxy-server=http://127.0.0.1:4000" in args and "--proxy-bypass-list=<-loopback>" in args
    assert "--headless" in args and "--disable-quic" in args and "--no-sandbox" in args
    assert "--force-webrtc-ip-handling-policy=disable_non_proxied_udp" in args
    assert "--no-sandbox" not in switches("http://127.0.0.1:4000", sandbox=True)


@pytest.mark.parametrize(
    ("requested", "expected"),
    [
        (None, "screenshot-20260214-150102-123.png"),
        ("  ", "screenshot-20260214-150102-123.png"),
        ("home", "home.png"),
        ("home.jpeg", "home.jpeg"),
        ("shop_2026-02-14.png", "shop_2026-02-14.png"),
    ],
)
def test_output_names_are_plain_names_with_a_default(requested: str | None, expected: str):
    assert output_name(requested, kind="screenshot", extension="png", now=NOW) == expected


@pytest.mark.parametrize(
    "requested", ["../up.png", "a/b.png", "/etc/passwd", ".hidden", "a..b", "x" * 101, "name with space.png", "é.png"]
)
def test_output_names_with_folders_or_odd_characters_are_refused(requested: str):
    with pytest.raises(OutputRefused, match="plain file name"):
        output_name(requested, kind="screenshot", extension="png", now=NOW)


def test_outputs_are_written_under_browser_and_never_overwrite(tmp_path: Path):
    assert write_output(tmp_path, "a.png", b"one") == "browser/a.png"
    assert (tmp_path / "browser" / "a.png").read_bytes() == b"one"
    with pytest.raises(OutputRefused, match="already exists"):
        write_output(tmp_path, "a.png", b"two")
    assert (tmp_path / "browser" / "a.png").read_bytes() == b"one"
    assert sorted(p.name for p in (tmp_path / "browser").iterdir()) == ["a.png"]


def test_a_browser_folder_that_leads_outside_the_workspace_is_refused(tmp_path: Path):
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (workspace / "browser").symlink_to(outside)
    with pytest.raises(OutputRefused, match="outside the workspace"):
        write_output(workspace, "a.png", b"x")
    assert list(outside.iterdir()) == []


def test_upload_paths_must_be_files_inside_the_workspace(tmp_path: Path):
    workspace = tmp_path / "ws"
    (workspace / "docs").mkdir(parents=True)
    (workspace / "docs" / "cv.pdf").write_bytes(b"%PDF")
    (tmp_path / "secret.txt").write_text("s")
    os.symlink(tmp_path / "secret.txt", workspace / "link.txt")
    assert upload_path(workspace, "docs/cv.pdf") == (workspace / "docs" / "cv.pdf").resolve()
    for bad, reason in [
        ("../secret.txt", "outside"),
        (str(tmp_path / "secret.txt"), "outside"),
        ("link.txt", "outside"),
        ("docs", "not a file"),
        ("", "empty"),
    ]:
        with pytest.raises(OutputRefused, match=reason):
            upload_path(workspace, bad)


def test_the_refusal_of_a_page_is_found_by_host_and_port():
    refusals = [
        Refusal("http://127.0.0.2:8000/img.png", "loopback", "127.0.0.2", 8000),
        Refusal("10.0.0.1:443", "private", "10.0.0.1", 443),
    ]
    assert refusal_of(refusals, "https://10.0.0.1/login") is refusals[1]
    assert refusal_of(refusals, "http://127.0.0.2:8000/other") is refusals[0]
    assert refusal_of(refusals, "http://127.0.0.2:9000/") is None
    assert refusal_of(refusals, "chrome-error://chromewebdata/") is None


@pytest.mark.parametrize(
    ("ref", "valid"), [("e12", True), ("f3e45", True), ("e", False), ("button", False), ("e1 ", False)]
)
def test_refs_look_like_the_snapshots(ref: str, valid: bool):
    assert bool(REF.fullmatch(ref)) is valid


def test_long_text_is_cut_with_a_marker_saying_how_much():
    assert bound_text("short", 10) == ("short", False)
    text, cut = bound_text("x" * 50, 10)
    assert cut and text.startswith("x" * 10) and text.endswith("[… truncated: showing 10 of 50 characters]")


def test_settings_defaults_and_limits(monkeypatch: pytest.MonkeyPatch, annabelle_home: Path):
    settings = load_settings(BrowserSettings)
    assert settings.browser_isolated and settings.browser_max_tabs == 5 and settings.browser_idle_seconds == 300
    assert settings.profile_dir == annabelle_home / "browser" / "profile"
    assert settings.workspace == annabelle_home / "workspace" and settings.allowed_hosts == []
    monkeypatch.setenv("WEB_FETCH_ALLOWED_HOSTS", "127.0.0.1, nas.local")
    monkeypatch.setenv("BROWSER_MAX_TABS", "0")
    with pytest.raises(ConfigError, match="BROWSER_MAX_TABS"):
        load_settings(BrowserSettings)
    monkeypatch.setenv("BROWSER_MAX_TABS", "2")
    assert load_settings(BrowserSettings).allowed_hosts == ["127.0.0.1", "nas.local"]
