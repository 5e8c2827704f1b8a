"""The live sidecar's speed: detection latency and cost (``make bench`` runs it; figures go into
BENCHMARKS.md).

1. **Latency** — from the moment the first initiator-grade line is written to the moment the
   incident line is written (its ``detected_at``), for:
   - *exception*: a traceback appended to a rank's log;
   - *crash*: a rank process (a stand-in with torchrun's environment) killed with SIGKILL and,
     as torchrun does ~0.2-0.4 s later, the agent's ``failed (exitcode: -9) local_rank: 1``
     line appended to the console (latency counted from that line; from the kill too);
   - *Xid*: an ``NVRM: Xid ... 79`` line appended to the kernel-log file for a rank's GPU;
   - *hang*: four stand-in ranks print a step line every 0.2 s, then stop (three wait on a futex
     as ranks blocked in a collective do, one sleeps); reported vs. k x median step time
     (floor lowered to 3 s for the benchmark).
   Each trial runs a fresh ``rankdoctor watch`` process (so each failure is a new one).
2. **Cost** — the sidecar following 8 ranks that write 1,000 lines/s each (step lines, with a
   few warnings), with NVML (a fake with 8 GPUs: the event thread and the 1 Hz poll run) and
   Prometheus polling (a stand-in HTTP server answering the DCGM queries) on: CPU time of the
   sidecar process over 60 s, and its peak resident memory.

3. **A burst** — a rank's log of 200 MiB copied into a followed folder at once (step lines, or
   one line with no line feed until its end), a CUDA OOM at its end: time to the incident, the
   same with a 1 MiB log, and ``grep -c`` reading the same file.

Usage: ``.venv/bin/python bench/bench_sidecar.py [--trials N] [--cost-seconds S] [--quick] [--burst-only]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PYTHON = sys.executable
TRACEBACK = (
    "[rank1]: Traceback (most recent call last):\n"
    '[rank1]:   File "train.py", line 9, in <module>\n'
    "[rank1]: RuntimeError: injected fault: bad batch at step 4\n"
)
XID = "[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n"
STANDIN_RANK = (
    "import sys, threading, time\n"
    "mode = sys.argv[1]\n"
    "if mode == 'sleep':\n"
    "    time.sleep(3600)\n"
    "else:\n"
    "    threading.Event().wait(3600)\n"
)


# --- helpers ---------------------------------------------------------------------------


def start_sidecar(tmp: Path, args: list[str], *, child_main: bool = False) -> subprocess.Popen[bytes]:
    argv = [PYTHON, "-m", "detector.cli", "watch"] if not child_main else [PYTHON, __file__, "--child"]
    proc = subprocess.Popen([*argv, *args], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=open(tmp / "sidecar.stderr", "wb"),  # noqa: SIM115
                            stdin=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        text = (tmp / "sidecar.stderr").read_text(errors="replace")
        if "; ready" in text:
            return proc
        if proc.poll() is not None:
            raise RuntimeError(f"sidecar exited: {text}")
        time.sleep(0.02)
    proc.kill()
    raise RuntimeError("sidecar not ready")


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


def wait_incident(path: Path, timeout: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            lines = [x for x in path.read_text().splitlines() if x.strip()]
            if lines:
                data: dict[str, Any] = json.loads(lines[0])
                return data
        time.sleep(0.01)
    raise RuntimeError(f"no incident in {path} within {timeout} s")


def detected(incident: dict[str, Any]) -> float:
    from datetime import datetime

    return datetime.fromisoformat(incident["detected_at"]).timestamp()


def standin_ranks(logs: Path, modes: list[str]) -> list[subprocess.Popen[bytes]]:
    procs = []
    run = logs / "run_bench"
    for rank, mode in enumerate(modes):
        folder = run / "attempt_0" / str(rank)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "stderr.log").touch()
        env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(len(modes)),
                   TORCHELASTIC_RESTART_COUNT="0", TORCHELASTIC_ERROR_FILE=str(folder / "error.json"))
        procs.append(subprocess.Popen([PYTHON, "-c", STANDIN_RANK, mode], env=env, start_new_session=True))
    return procs


def append(path: Path, text: str) -> float:
    """Append and return the time just before the write (the moment the line is written)."""
    t = time.time()
    with open(path, "a") as fh:
        fh.write(text)
    return t


# --- latency trials --------------------------------------------------------------------


def trial(kind: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="rd-bench-") as d:
        tmp = Path(d)
        logs = tmp / "logs"
        logs.mkdir()
        kern = tmp / "kern.log"
        kern.write_text("[    0.000000] Linux version 6.1.0\n")
        console = tmp / "console.log"
        console.touch()
        incidents = tmp / "incidents.jsonl"
        ranks = standin_ranks(logs, ["wait"] * 4) if kind in ("crash", "exception", "xid") else []
        args = ["--logs", str(logs), str(console), "--kmsg", str(kern), "--no-nvml", "--no-metrics",
                "--incidents", str(incidents), "--node", "bench", "--rank-gpu", "2=0000:3b:00", "--no-remediate"]
        if kind == "hang":
            ranks = standin_ranks(logs, ["wait", "wait", "sleep", "wait"])
            args += ["--hang-floor", "3"]
        sidecar = start_sidecar(tmp, args)
        try:
            time.sleep(2.5 + random.random() * 0.5)  # the ranks are found; the write lands at any phase of a poll
            files = [logs / "run_bench" / "attempt_0" / str(r) / "stderr.log" for r in range(4)]
            out: dict[str, float] = {}
            if kind == "exception":
                t0 = append(files[1], TRACEBACK)
            elif kind == "xid":
                t0 = append(kern, XID)
            elif kind == "crash":
                kill_at = time.time()
                ranks[1].send_signal(signal.SIGKILL)
                time.sleep(0.25)
                t0 = append(console, f"E1130 00:00:00.000000 1 torch/distributed/elastic/multiprocessing/api.py:1002] "
                                     f"failed (exitcode: -9) local_rank: 1 (pid: {ranks[1].pid}) of binary: python\n")
                out["from_kill_s"] = kill_at
            else:  # hang: steady steps, then silence
                for step in range(1, 16):
                    for f in files:
                        with open(f, "a") as fh:
                            fh.write(f"2026-11-30 00:00:00,000 INFO [rank{files.index(f)}] step {step} | loss 0.5 | "
                                     f"step_ms 200.0 | fwd_ms 1.0\n")
                    time.sleep(0.2)
                t0 = time.time()
            incident = wait_incident(incidents)
            at = detected(incident)
            out["latency_s"] = at - t0
            if "from_kill_s" in out:
                out["from_kill_s"] = at - out["from_kill_s"]
            out["right"] = float(incident["initiator"]["rank"] == {"exception": 1, "crash": 1, "xid": 2, "hang": 2}[kind])
            return out
        finally:
            stop(sidecar)
            for p in ranks:
                if p.poll() is None:
                    p.kill()
                    p.wait()


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    k = max(0, min(len(values) - 1, round(q * (len(values) - 1))))
    return values[k]


# --- cost ------------------------------------------------------------------------------


class _PromStandIn(BaseHTTPRequestHandler):
    queries = 0

    def do_GET(self) -> None:
        type(self).queries += 1
        body = json.dumps({"status": "success", "data": {"resultType": "vector", "result": []}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        return


WRITER = """
import sys, time, os
files = sys.argv[2:]
rate = int(sys.argv[1])
fds = [open(f, 'a', buffering=1) for f in files]
tick = 0.01
per_tick = max(1, rate // 100)
step = 0
start = time.monotonic()
n = 0
while True:
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()) + ",000"
    for i, fh in enumerate(fds):
        lines = []
        for _ in range(per_tick):
            step += 1
            if step % 500 == 0:
                lines.append(f"{stamp} WARNING [rank{i}] grad norm is large: 12.5\\n")
            else:
                lines.append(f"{stamp} INFO [rank{i}] step {step} | loss 0.4321 | step_ms 1.0 | fwd_ms 0.4 | bwd_ms 0.5 | data_ms 0.1\\n")
        fh.write("".join(lines))
    n += 1
    delay = start + n * tick - time.monotonic()
    if delay > 0:
        time.sleep(delay)
"""


def proc_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def cost(seconds: float, ranks: int = 8, rate: int = 1000, real_nvml: bool = False) -> dict[str, float]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _PromStandIn)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory(prefix="rd-bench-cost-") as d:
        tmp = Path(d)
        logs = tmp / "logs"
        files = []
        for r in range(ranks):
            folder = logs / "run_cost" / "attempt_0" / str(r)
            folder.mkdir(parents=True)
            files.append(folder / "stderr.log")
            files[-1].touch()
        kern = tmp / "kern.log"
        kern.write_text("[ 0.0] boot\n")
        args = ["--logs", str(logs), "--kmsg", str(kern), "--no-metrics", "--node", "bench", "--no-remediate",
                "--prometheus", f"http://127.0.0.1:{server.server_address[1]}", "--incidents", str(tmp / "inc.jsonl")]
        sidecar = start_sidecar(tmp, [*args, "--real-nvml"] if real_nvml else args, child_main=True)
        writer = subprocess.Popen([PYTHON, "-c", WRITER, str(rate), *map(str, files)], start_new_session=True)
        try:
            time.sleep(5.0)  # warm up
            c0, t0 = proc_cpu(sidecar.pid), time.monotonic()
            peak = proc_rss_mb(sidecar.pid)
            lines0 = sum(f.read_bytes().count(b"\n") for f in files)
            while time.monotonic() - t0 < seconds:
                time.sleep(1.0)
                peak = max(peak, proc_rss_mb(sidecar.pid))
            c1, t1 = proc_cpu(sidecar.pid), time.monotonic()
            lines1 = sum(f.read_bytes().count(b"\n") for f in files)
            incidents = (tmp / "inc.jsonl").read_text() if (tmp / "inc.jsonl").exists() else ""
            for line in incidents.splitlines():  # a healthy run: any incident is a false alarm to look at
                data = json.loads(line)
                print(f"<!-- unexpected incident: {data['cause']} rank {data['initiator']['rank']}: "
                      f"{data['explanation']} {[e['text'][:120] for e in data['evidence'][:3]]} -->", file=sys.stderr)
            return {"cpu_pct_of_one_core": 100 * (c1 - c0) / (t1 - t0), "rss_mb_peak": peak,
                    "lines_per_s": (lines1 - lines0) / (t1 - t0), "prom_queries": float(_PromStandIn.queries),
                    "incidents": float(len(incidents.splitlines()))}
        finally:
            writer.kill()
            writer.wait()
            stop(sidecar)
            server.shutdown()


class _FakeNvml:
    """8 GPUs, no faults; answers the event wait (500 ms timeouts) and the 1 Hz poll."""

    class NVMLError_NotSupported(Exception):
        pass

    class NVMLError_Timeout(Exception):
        pass

    @staticmethod
    def _pci(h: int) -> Any:
        return type("Pci", (), {"busId": f"00000000:{0x18 + h:02X}:00.0".encode()})()

    def nvmlInit(self) -> None: ...
    def nvmlShutdown(self) -> None: ...
    def nvmlDeviceGetCount(self) -> int:
        return 8

    def nvmlDeviceGetHandleByIndex(self, i: int) -> int:
        return i

    def nvmlDeviceGetPciInfo(self, h: int) -> Any:
        return self._pci(h)

    def nvmlEventSetCreate(self) -> int:
        return 1

    def nvmlDeviceGetSupportedEventTypes(self, h: int) -> int:
        return 8

    def nvmlDeviceRegisterEvents(self, h: int, m: int, s: int) -> None: ...
    def nvmlEventSetFree(self, s: int) -> None: ...
    def nvmlEventSetWait(self, s: int, ms: int) -> Any:
        time.sleep(ms / 1000)
        raise self.NVMLError_Timeout()

    def nvmlDeviceGetTotalEccErrors(self, h: int, a: int, b: int) -> int:
        return 0

    def nvmlDeviceGetRemappedRows(self, h: int) -> tuple[int, int, int, int]:
        return (0, 0, 0, 0)

    def nvmlDeviceGetCurrentClocksEventReasons(self, h: int) -> int:
        return 0

    def nvmlDeviceGetTemperature(self, h: int, s: int) -> int:
        return 40

    def nvmlDeviceGetPowerUsage(self, h: int) -> int:
        return 300_000

    def nvmlDeviceGetComputeRunningProcesses(self, h: int) -> list[Any]:
        return []


def child_main(argv: list[str]) -> int:
    """The sidecar with the fake NVML (the cost run): ``rankdoctor watch`` otherwise."""
    from detector.cli.watch import build_parser, config_from_args
    from detector.sidecar import service as runner

    real = "--real-nvml" in argv  # the machine's own NVML (a GPU machine), not the fake
    args = build_parser().parse_args([a for a in argv if a != "--real-nvml"])
    config = config_from_args(args, dict(os.environ))
    outside = runner.Outside(out=None) if real else runner.Outside(nvml_loader=_FakeNvml, out=None)
    sidecar = runner.Sidecar(config, outside)
    signal.signal(signal.SIGTERM, lambda *_: sidecar.request_stop())
    return sidecar.run()


# --- a burst: a large log written at once -------------------------------------------------

OOM_LINE = "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"


def burst_log(path: Path, megabytes: int, *, one_line: bool) -> None:
    """``megabytes`` of a rank's log and a CUDA OOM at its end: step lines, or (``one_line``) a
    single line of words with no line feed until its end (a binary dump, a progress bar's
    redraws)."""
    rng = random.Random(7)
    words = ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(rng.randint(2, 9)))
             for _ in range(5000)]
    size = megabytes << 20
    with open(path, "w") as fh:
        fh.write("[rank0]: step 0 | loss 2.0000\n")
        step = 1
        while fh.tell() < size:
            if one_line:
                fh.write(" ".join(rng.choice(words) for _ in range(100_000)))
            else:
                # (a step each 2 ms of the log's clock: times that only go forward)
                fh.write("".join(f"2026-12-07 {10 + j // 1_800_000:02d}:{(j // 30_000) % 60:02d}:{(j // 500) % 60:02d}"
                                 f".{2 * (j % 500):03d} [rank0]: step {j} | loss "
                                 f"{2.0 - (j % 1000) / 1000:.4f} | lr 1.0e-04 | grad_norm 0.91\n"
                                 for j in range(step, step + 10_000)))
                step += 10_000
        fh.write(("\n" if one_line else "") + OOM_LINE)


_BURST_LOGS: dict[tuple[int, bool], Path] = {}


def _burst_source(megabytes: int, one_line: bool) -> Path:
    """The burst's log, made once per size and kind (trials copy the same file)."""
    key = (megabytes, one_line)
    if key not in _BURST_LOGS:
        folder = Path(tempfile.mkdtemp(prefix="rd-bench-burst-"))
        burst_log(folder / "source.log", megabytes, one_line=one_line)
        _BURST_LOGS[key] = folder / "source.log"
    return _BURST_LOGS[key]


def burst(megabytes: int, *, one_line: bool) -> dict[str, float]:
    """Time from the start of copying the log into a followed folder to the incident's
    ``detected_at`` (the OOM at its end waits up to detection.confirm_wait_s, 5 s, for its
    rank's exit: the same wait as with a small file); ``grep -c`` reading the same file."""
    with tempfile.TemporaryDirectory(prefix="rd-bench-") as d:
        tmp = Path(d)
        logs = tmp / "logs"
        logs.mkdir()
        src = _burst_source(megabytes, one_line)
        incidents = tmp / "incidents.jsonl"
        proc = start_sidecar(tmp, ["--logs", str(logs), "--state", str(tmp / "state"), "--incidents", str(incidents),
                                   "--no-nvml", "--no-metrics", "--no-remediate"])
        try:
            t0 = time.time()
            subprocess.run(["cp", str(src), str(logs / "rank0.log")], check=True)
            copied = time.time() - t0
            incident = wait_incident(incidents, timeout=300)
        finally:
            stop(proc)
        g0 = time.perf_counter()
        subprocess.run(["grep", "-c", "OutOfMemoryError", str(src)], stdout=subprocess.DEVNULL, check=False)
        grep_s = time.perf_counter() - g0
        return {"latency_s": detected(incident) - t0, "copy_s": copied, "grep_s": grep_s,
                "right": float(incident.get("cause") == "cuda_oom")}


def burst_table(trials: int, megabytes: int) -> None:
    print("\n### A burst: a rank's log written at once (cp into a followed folder), a CUDA OOM at its end\n")
    print("| log | size | trials | right cause | time to incident p50 (s) | the same, 1 MiB log (s) | cp (s) | grep -c (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for one_line in (False, True):
        big = [burst(megabytes, one_line=one_line) for _ in range(trials)]
        small = [burst(1, one_line=one_line) for _ in range(trials)]
        right = sum(int(r["right"]) for r in big)
        print(f"| {'one line' if one_line else 'step lines'} | {megabytes} MiB | {trials} | {right}/{trials} | "
              f"{statistics.median(r['latency_s'] for r in big):.2f} | "
              f"{statistics.median(r['latency_s'] for r in small):.2f} | "
              f"{statistics.median(r['copy_s'] for r in big):.2f} | {statistics.median(r['grep_s'] for r in big):.2f} |",
              flush=True)


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return child_main(sys.argv[2:])
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--trials", type=int, default=15)
    p.add_argument("--cost-seconds", type=float, default=60.0)
    p.add_argument("--quick", action="store_true", help="5 trials, 20 s of cost")
    p.add_argument("--cost-only", action="store_true", help="only the cost: the fake NVML, then (with --real-nvml) the machine's")
    p.add_argument("--real-nvml", action="store_true", help="also measure the cost with this machine's NVML (needs a GPU)")
    p.add_argument("--burst-only", action="store_true", help="only the burst: a 200 MiB log written at once")
    p.add_argument("--burst-mb", type=int, default=200, help="the burst's size (MiB)")
    p.add_argument("--burst-trials", type=int, default=3, help="trials of each burst")
    args = p.parse_args()
    trials = 5 if args.quick else args.trials
    seconds = 20.0 if args.quick else args.cost_seconds
    if args.burst_only:
        burst_table(args.burst_trials, args.burst_mb)
        return 0
    if args.cost_only:
        print("| NVML | measured over | lines/s followed | CPU (% of one core) | peak RSS (MB) | incidents |")
        print("|---|---|---|---|---|---|")
        for real in (False, True) if args.real_nvml else (False,):
            c = cost(seconds, real_nvml=real)
            print(f"| {'this machine' if real else 'fake, 8 GPUs'} | {seconds:.0f} s | {c['lines_per_s']:.0f} | "
                  f"{c['cpu_pct_of_one_core']:.2f} | {c['rss_mb_peak']:.0f} | {c['incidents']:.0f} |", flush=True)
        return 0
    print("### Detection latency (first initiator-grade line written -> incident line written)\n")
    print("| failure | trials | right rank | p50 (s) | p95 (s) | max (s) | note |")
    print("|---|---|---|---|---|---|---|")
    for kind in ("exception", "crash", "xid", "hang"):
        n = trials if kind != "hang" else max(3, trials // 3)
        results = [trial(kind) for _ in range(n)]
        lat = [r["latency_s"] for r in results]
        note = ""
        if kind == "crash":
            kills = [r["from_kill_s"] for r in results]
            note = f"from the SIGKILL itself: p50 {statistics.median(kills):.2f} s, p95 {pct(kills, 0.95):.2f} s"
        if kind == "hang":
            note = "counted from the last step line; allowance = max(floor 3 s, 5 x 0.2 s) = 3 s"
        right = sum(int(r["right"]) for r in results)
        print(f"| {kind} | {n} | {right}/{n} | {statistics.median(lat):.3f} | {pct(lat, 0.95):.3f} | {max(lat):.3f} | {note} |",
              flush=True)
    print("\n### Cost: 8 ranks x 1,000 lines/s, NVML (fake, 8 GPUs) and Prometheus polling on\n")
    c = cost(seconds)
    print("| measured over | lines/s followed | CPU (% of one core) | peak RSS (MB) | Prometheus queries | incidents |")
    print("|---|---|---|---|---|---|")
    print(f"| {seconds:.0f} s | {c['lines_per_s']:.0f} | {c['cpu_pct_of_one_core']:.2f} | {c['rss_mb_peak']:.0f} | "
          f"{c['prom_queries']:.0f} | {c['incidents']:.0f} |")
    burst_table(3, args.burst_mb if not args.quick else 50)
    return 0


if __name__ == "__main__":
    sys.exit(main())
