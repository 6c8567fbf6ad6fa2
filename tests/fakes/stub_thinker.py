"""A stand-in Thinker for agent-manager tests: `python stub_thinker.py PORT`, ready in a fraction of a second.

It speaks the Thinker's HTTP API just enough: `/health`, `/process-message` (echoes; the text `crash` exits with
code 3, `expensive` answers with `paused: true`, `over budget` with a budget stop, marked `notify` the first
time only, as the real Thinker's ledger does), `/execute-skill` (instructions `slow` take 30 s, `fail` fail;
it writes a session file first, as a real Thinker's chat would), `/cost-status`, `/cost-resume`. Like the real
one it exits when stdin closes under `ANNABELLE_PARENT_WATCH=stdin`. `STUB_MODE=exit` exits at once with code 2;
while the file `STUB_HANG_FILE` exists, `/health` answers 503.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

BUDGET_SENTENCE = (
    "Stopped before calling the model: the daily budget of the agent a (1,000 tokens) would be passed "
    "(used 900; this call could take up to 4,196 tokens). It resets at 00:00 UTC."
)
_budget_notified = threading.Event()

COST_STATUS = {
    "paused": True,
    "pauseReason": "Hourly cap reached",
    "currentHourTokens": 260_000,
    "hardCapTokensPerHour": 250_000,
    "shortWindowTokensPerMinute": 9_000,
    "baselineTokensPerMinute": 1_200,
    "shortWindowMinutes": 2,
}


def agent_id() -> str:
    """The agent this stub runs: the first (only) entry of AGENTS_CONFIG, as the hub wrote it."""
    config = json.loads(Path(os.environ["AGENTS_CONFIG"]).read_text())
    return str(config["agents"][0]["agentId"])


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def reply(self, body: dict[str, Any], code: int = 200) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/health":
            if Path(os.environ.get("STUB_HANG_FILE", "/nonexistent")).exists():
                self.reply({"status": "sick"}, 503)
            else:
                self.reply({"status": "ok", "pid": os.getpid()})
        elif self.path == "/cost-status":
            self.reply(COST_STATUS)
        else:
            self.reply({"error": "no such path"}, 404)

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if self.path == "/process-message":
            self.process_message(body)
        elif self.path == "/execute-skill":
            self.execute_skill(body)
        elif self.path in ("/cost-resume", "/clear-session"):
            self.reply({"success": True, "message": "Done."})
        else:
            self.reply({"error": "no such path"}, 404)

    def process_message(self, body: dict[str, Any]) -> None:
        if body["text"] == "crash":
            os._exit(3)
        if body["text"] == "expensive":
            self.reply({"success": True, "response": "costly", "paused": True, "error": "cap reached"})
        elif body["text"] == "over budget":
            stop = {"scope": "agent", "limit": "dailyTokens", "unit": "tokens", "window": "day", "limitValue": 1000}
            stop |= {
                "used": 900,
                "estimate": 4196,
                "agentId": body.get("agentId") or "a",
                "notify": not _budget_notified.is_set(),
            }
            _budget_notified.set()
            answer = {"success": False, "response": BUDGET_SENTENCE, "error": BUDGET_SENTENCE, "budget": stop}
            self.reply({**answer, "errorCode": "BUDGET_EXCEEDED"})
        else:
            self.reply({"success": True, "response": "echo " + body["text"], "pid": os.getpid()})

    def execute_skill(self, body: dict[str, Any]) -> None:
        sessions = Path(os.environ["ANNABELLE_HOME"]) / "sessions" / agent_id()
        sessions.mkdir(parents=True, exist_ok=True)
        (sessions / "task.jsonl").write_text("{}\n")
        if body["instructions"] == "slow":
            time.sleep(30)
        if body["instructions"] == "fail":
            self.reply({"success": False, "response": "", "error": "the model failed", "toolsUsed": []})
            return
        answer = {"success": True, "response": "did " + body["instructions"], "toolsUsed": [], "totalSteps": 1}
        self.reply({**answer, "agent": agent_id(), "requiredTools": body.get("requiredTools"), "pid": os.getpid()})


def main() -> None:
    if os.environ.get("STUB_MODE") == "exit":
        sys.exit(2)
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    if os.environ.get("ANNABELLE_PARENT_WATCH") == "stdin":
        while os.read(0, 4096):
            pass
        os._exit(0)
    threading.Event().wait()


if __name__ == "__main__":
    main()
