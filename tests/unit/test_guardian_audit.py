from __future__ import annotations

from pathlib import Path

from guardian_mcp.audit import AuditEntry, AuditLog, AuditThreat, content_hash


def _entry(scan_id: str, *, safe: bool = True) -> AuditEntry:
    threats = [] if safe else [AuditThreat(path="a", type="prompt_injection")]
    return AuditEntry(
        scan_id=scan_id,
        timestamp="2026-01-01T00:00:00.000Z",
        source="test",
        content_hash="0" * 16,
        content_length=1,
        safe=safe,
        confidence=1.0,
        threats=threats,
        scanner="rules",
        latency_ms=0.1,
    )


def test_content_hash_is_the_first_16_hex_digits_of_sha256() -> None:
    assert content_hash("abc") == "ba7816bf8f01cfea"


def test_entries_read_back_newest_first_with_filters(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "logs" / "audit.jsonl")
    for index in range(10):
        log.append(_entry(f"s{index}", safe=index % 3 != 0))
    assert [e.scan_id for e in log.read(limit=3)] == ["s9", "s8", "s7"]
    assert [e.scan_id for e in log.read(threats_only=True)] == ["s9", "s6", "s3", "s0"]
    assert [e.scan_id for e in log.read(scan_id="s4")] == ["s4"]
    assert log.read(scan_id="missing") == []


def test_a_missing_file_reads_as_empty(tmp_path: Path) -> None:
    assert AuditLog(tmp_path / "none.jsonl").read() == []


def test_reading_spans_many_blocks(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl")
    for index in range(3000):
        log.append(_entry(f"scan-{index:05d}"))
    assert (tmp_path / "audit.jsonl").stat().st_size > 3 * 64 * 1024
    newest = log.read(limit=1000)
    assert [e.scan_id for e in newest[:2]] == ["scan-02999", "scan-02998"]
    assert newest[-1].scan_id == "scan-02000"
    assert [e.scan_id for e in log.read(scan_id="scan-00000")] == ["scan-00000"]


def test_a_torn_line_does_not_hide_the_others(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path)
    log.append(_entry("old"))
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"scan_id": "torn", "timest')
    assert [e.scan_id for e in log.read()] == ["old"]
    log.append(_entry("new"))
    assert [e.scan_id for e in log.read()] == ["new", "old"]
