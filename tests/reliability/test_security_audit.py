"""The audit log is append-only JSON lines, and secrets from configs (webhook URLs and tokens,
inline or from the environment) never appear in it, in the state database, on the terminal, in
``--json`` output or in reports -- also when the webhook fails and its error names the URL, and
when a token holds characters that JSON escapes."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import ClassVar

import pytest

from detector.cli.main import main as rankdoctor
from detector.remediation.audit import AuditLog, Redactor
from detector.support.clock import SystemClock

URL_SECRET = "T0SECRET/B0SECRET/XyZsecretPathPart"
TOKEN = 'tok"en\\with-quote-and-backslash-9f8e7d'
ENV_TOKEN = "envtoken-abcdef0123456789"


class _Sink(http.server.BaseHTTPRequestHandler):
    status = 500
    bodies: ClassVar[list[bytes]] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        _Sink.bodies.append(self.rfile.read(length))
        self.send_response(_Sink.status)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture()
def sink() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Sink.bodies = []
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _config(tmp: Path, url: str) -> Path:
    closed = "http://127.0.0.1:9"  # discard port: nothing listens, the POST fails with an error
    path = tmp / "rankdoctor.yaml"
    path.write_text(json.dumps({"remediation": {
        "act": True, "state_dir": str(tmp / "state"), "hook_retries": 0, "min_confidence": 0.1,
        "verify": {"enabled": False},
        "hooks": [
            {"type": "webhook", "name": "chat", "url": f"{url}/{URL_SECRET}", "token": TOKEN},
            {"type": "webhook", "name": "pager", "url": f"{closed}/{URL_SECRET}/x?key={ENV_TOKEN}",
             "token_env": "PAGER_TOKEN"},
            {"type": "webhook", "name": "env", "url_env": "HOOK_URL", "token_env": "PAGER_TOKEN"},
        ]}}))
    return path


def _incident(tmp: Path, ident: str) -> Path:
    path = tmp / f"{ident}.json"
    path.write_text(json.dumps({
        "id": ident, "cause": "cuda_oom", "initiator": {"rank": 1, "node": "node01"}, "confidence": 0.9,
        "explanation": "CUDA out of memory", "evidence": [], "remediation": {"drain_node": False, "resubmit": False}}))
    return path


def _secrets() -> list[str]:
    escaped = json.dumps(TOKEN)[1:-1]
    return [URL_SECRET, TOKEN, escaped, ENV_TOKEN, "XyZsecretPathPart", "with-quote-and-backslash"]


def test_secrets_never_written(tmp_path: Path, sink: str, capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAGER_TOKEN", ENV_TOKEN)
    monkeypatch.setenv("HOOK_URL", f"{sink}/{URL_SECRET}/env")
    cfg = _config(tmp_path, sink)
    outputs = []
    for n, extra in enumerate((["--act"], [], ["--act", "--json"], ["--json"])):
        code = rankdoctor(["remediate", str(_incident(tmp_path, f"inc-{n}")), "--config", str(cfg), *extra])
        assert code in (0, 1)
        captured = capsys.readouterr()
        outputs += [captured.out, captured.err]
    for status in (["--status"], ["--status", "--json"], ["--reset-breaker"]):
        rankdoctor(["remediate", "--config", str(cfg), *status])
        captured = capsys.readouterr()
        outputs += [captured.out, captured.err]
    assert _Sink.bodies, "the webhook was called"
    audit = (tmp_path / "state" / "audit.jsonl").read_bytes()
    database = b"".join(p.read_bytes() for p in (tmp_path / "state").glob("state.sqlite3*"))
    blobs = {"audit": audit.decode(), "state database": database.decode("utf-8", "replace"), **{
        f"output {i}": text for i, text in enumerate(outputs)}}
    assert "HTTP 500" in audit.decode() and "failed" in audit.decode()  # the failures are recorded...
    for where, text in blobs.items():
        for secret in _secrets():
            assert secret not in text, f"{secret!r} in {where}"  # ...without the secrets
    for line in audit.decode().splitlines():
        json.loads(line)
    # the webhook itself does get the token (it is the one place it belongs)
    replay = tmp_path / "report.json"
    assert rankdoctor(["replay", str(Path(__file__).resolve().parents[2] / "replay_logs" / "cuda_oom_8r"),
                       "--format", "json", "-o", str(replay), "--no-progress"]) == 0
    assert not any(s in replay.read_text() for s in _secrets())


def test_redactor_masks_json_escaped_secrets(tmp_path: Path) -> None:
    """A token with a quote or backslash is written escaped in a JSON line; the redactor used
    to look only for the raw text, so the escaped token reached the audit log."""
    log = AuditLog(tmp_path / "audit.jsonl", SystemClock(), Redactor([TOKEN]))
    log.write("test", {"detail": f"POST failed: Authorization: Bearer {TOKEN}"})
    text = (tmp_path / "audit.jsonl").read_text()
    assert TOKEN not in text and json.dumps(TOKEN)[1:-1] not in text
    assert json.loads(text)["detail"] == "POST failed: Authorization: Bearer ***"


def test_audit_log_is_append_only_json_lines(tmp_path: Path) -> None:
    """Earlier records are never rewritten: a new AuditLog on the same file (a restart)
    appends; concurrent writers give whole lines."""
    path = tmp_path / "audit.jsonl"
    path.write_text('{"time": "2026-01-01T00:00:00+00:00", "kind": "earlier"}\n')
    before = path.read_bytes()
    logs = [AuditLog(path, SystemClock(), Redactor([])) for _ in range(4)]

    def write(log: AuditLog, n: int) -> None:
        for i in range(200):
            log.write("decision", {"writer": n, "i": i, "text": "x" * (i * 37 % 3000)})

    threads = [threading.Thread(target=write, args=(log, n)) for n, log in enumerate(logs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    data = path.read_bytes()
    assert data.startswith(before)
    lines = data.decode().splitlines()
    assert len(lines) == 1 + 4 * 200
    seen = set()
    for line in lines[1:]:
        record = json.loads(line)
        datetime.fromisoformat(record["time"]).astimezone(UTC)
        seen.add((record["writer"], record["i"]))
    assert len(seen) == 800
