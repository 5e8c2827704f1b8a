"""What a death by signal means, which rank a device names, torch's unpadded log stamps, and the
fast paths of start-up (libyaml, the small-input engine, step parsing without numpy). Lines come
from development cases of replay_logs/real or are the programs' documented formats."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from detector.errors import ConfigError
from detector.rules.compile import load_ruleset
from detector.rules.engine import RuleSet
from detector.sources.runs import hosts_named
from detector.sources.timestamps import parse_timestamp
from detector.support import yamlfile
from detector.types import Cause
from tests.support.replaying import Seen, incidents_of


def _replay(tmp_path: Path, text: str, ruleset: RuleSet, name: str = "train.log") -> list[Seen]:
    return incidents_of(tmp_path, {name: text}, ruleset)


def test_a_bare_sigkill_names_the_rank_but_not_the_killer(tmp_path: Path, ruleset: RuleSet) -> None:
    # D-mgsv-2: torch.distributed.launch's agent, nothing else said about the kill: the rank is
    # known, who killed it is not (the OOM killer most often, else a person or the scheduler)
    got = _replay(tmp_path, (
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 (pid: 178) of binary: "
        "/root/miniconda3/envs/MGSV_env/bin/python\n"), ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.UNKNOWN, 0)]
    assert got[0].confidence <= 0.5


def test_a_sigkill_with_the_oom_killers_line_is_an_oom_kill(tmp_path: Path, ruleset: RuleSet) -> None:
    got = _replay(tmp_path, (
        "[2024-03-01 10:00:00,000] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) "
        "local_rank: 0 (pid: 178) of binary: /usr/bin/python\n"
        "Mar  1 09:59:59 node01 kernel: Out of memory: Killed process 178 (python) total-vm:123456kB, "
        "anon-rss:120000kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:400kB oom_score_adj:0\n"), ruleset)
    assert [g.cause for g in got][:1] == [Cause.HOST_OOM_KILL]


def test_a_segfault_stays_a_crash_signal(tmp_path: Path, ruleset: RuleSet) -> None:
    got = _replay(tmp_path, (
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -11) local_rank: 1 (pid: 179) of binary: "
        "/usr/bin/python\n"), ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.CRASH_SIGNAL, 1)]


def test_a_data_loader_worker_killed_is_no_exit_of_the_rank(tmp_path: Path, ruleset: RuleSet) -> None:
    # C-paimegatron-583: the worker's SIGKILL must not become the rank's own exit by SIGKILL
    got = _replay(tmp_path, (
        "[rank0]:     _error_if_any_worker_fails()\n"
        "[rank0]: RuntimeError: DataLoader worker (pid 9382) is killed by signal: Killed. \n"), ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.DATA_LOADER_STALL, 0)]
    assert not any("exited with code" in t for t in got[0].evidence)


def test_cuda_oom_names_its_device_as_the_local_rank_on_one_node(tmp_path: Path, ruleset: RuleSet) -> None:
    # C-litgpt-303: no rank prefix; one process per GPU
    got = _replay(tmp_path, (
        "iter 4 step 0: loss 2.6297, iter time: 827.80ms\n"
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 8.06 GiB. GPU 1 has a total capacty of "
        "23.70 GiB of which 1.60 GiB is free.\n"), ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.CUDA_OOM, 1)]


def test_a_prefixed_rank_wins_over_the_device_number(tmp_path: Path, ruleset: RuleSet) -> None:
    got = _replay(tmp_path, (
        "[rank5]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
        "of 79.11 GiB of which 1.05 GiB is free.\n"), ruleset)
    assert [(g.cause, g.rank) for g in got] == [(Cause.CUDA_OOM, 5)]


@pytest.mark.parametrize(("text", "month", "day"), [
    ("[E726 10:59:44.365679787 ProcessGroupNCCL.cpp:621] [Rank 11] x", 7, 26),  # torch 2.4's own logger
    ("[E1130 17:40:34.227531 1220 ProcessGroupNCCL.cpp:577] x", 11, 30),
    ("[W105 01:02:03.000000001 x", 1, 5),
    ("E1201 01:02:03.5 x", 12, 1),
])
def test_torch_log_stamps_with_an_unpadded_month(text: str, month: int, day: int) -> None:
    stamp = parse_timestamp(text, year=2024)
    assert stamp is not None and stamp.time is not None
    assert (stamp.time.month, stamp.time.day) == (month, day)


def test_an_abort_after_a_watchdog_teardown_is_collateral(tmp_path: Path, ruleset: RuleSet) -> None:
    # B-accelerate-2960: the root-cause table's SIGABRT came a second after another rank's
    # watchdog teardown; it is not the failure's start
    got = _replay(tmp_path, (
        "[rank11]:[E726 10:59:44.365679787 ProcessGroupNCCL.cpp:621] [Rank 11] Some NCCL operations have failed or "
        "timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
        "corrupted/incomplete data.\n"
        "Root Cause (first observed failure):\n"
        "[0]:\n"
        "  time      : 2024-07-26_10:59:45\n"
        "  host      : SH-IDC1-10-140-24-95\n"
        "  rank      : 10 (local_rank: 2)\n"
        "  exitcode  : -6 (pid: 214033)\n"
        "  error_file: <N/A>\n"
        "  traceback : Signal 6 (SIGABRT) received by PID 214033\n"), ruleset)
    assert got and all(g.cause is not Cause.CRASH_SIGNAL for g in got), got


def test_lines_of_one_shape_are_read_once_yet_a_host_line_is_found() -> None:
    lines = [f"2026-11-29 08:00:{i % 60:02d},000 INFO step {i} | loss 2.5" for i in range(300)]
    lines.insert(150, "Nov 29 12:00:01 node07 kernel: NVRM: Xid (PCI:0000:2b:00): 79, GPU has fallen off the bus.")
    lines.append("node09:4003:4103 [3] NCCL INFO Bootstrap : Using eth0:10.0.5.13<0>")
    prompts, others = hosts_named(lines)
    assert prompts == set() and others == {"node07", "node09"}


@pytest.mark.parametrize("text", [
    "a: &x [1]\nb: *x\n", "a: 1\na: 2\n", "rules:" + " [" * 80 + " ]" * 80 + "\n", "a: [1\n",
    "a: !!python/name:os.system\n", "\x00a: 1\n", "a: 1\n---\nb: 2\n", "rules: [" + "1, " * 60_000 + "1]\n",
])
def test_libyaml_and_pure_python_refuse_alike(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def refusal(fast: bool) -> str:
        monkeypatch.setattr(yamlfile, "_FAST", fast)
        with pytest.raises(ConfigError) as err:
            yamlfile.loads_yaml(text, "f.yaml")
        return str(err.value).split(":", 1)[0]

    assert refusal(True) == refusal(False) == "f.yaml"


def test_libyaml_and_pure_python_read_the_shipped_packs_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    root = Path(__file__).resolve().parents[2] / "rules"
    for path in sorted(root.glob("*.yaml")):
        text = path.read_text()
        monkeypatch.setattr(yamlfile, "_FAST", True)
        fast = yamlfile.loads_yaml(text, str(path))
        monkeypatch.setattr(yamlfile, "_FAST", False)
        slow = yamlfile.loads_yaml(text, str(path))
        assert fast == slow
        assert fast["rules"][0].pos == slow["rules"][0].pos


def test_a_small_input_uses_the_cached_database_or_else_re(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RANKDOCTOR_CACHE_DIR", str(tmp_path / "cache"))
    assert load_ruleset(small_input=True).engine == "re"  # nothing cached: no database compiled
    big = load_ruleset()  # a large replay compiles and caches the database
    assert big.engine == "hyperscan"
    assert load_ruleset(small_input=True).engine == "hyperscan"  # from the cache now


def test_step_lines_parse_without_numpy() -> None:
    code = ("import sys\nfrom detector.stats import StepResolver, make_note, choose_preset\n"
            "assert 'numpy' not in sys.modules, 'numpy imported'\n"
            "from detector.stats import analyze\nassert 'numpy' in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_a_paste_replays_without_numpy_or_the_flight_recorder_decoder(tmp_path: Path) -> None:
    """Start-up of a paste (issue 12): two ranks with one step line each (no interval to judge)
    and an error need neither numpy nor the Flight Recorder's decoder and analysis; a run with
    a dump imports them."""
    paste = tmp_path / "paste.log"
    paste.write_text("[rank0]:2026-11-30T17:29:58Z step 1201 | loss 2.31 | step_ms 812.4\n"
                     "[rank1]:2026-11-30T17:29:58Z step 1201 | loss 2.30 | step_ms 811.9\n"
                     "[rank0]:RuntimeError: CUDA error: an illegal memory access was encountered\n")
    code = ("import sys\nfrom pathlib import Path\nfrom detector.replay import replay_path\n"
            "from detector.rules.compile import load_ruleset\n"
            f"r = replay_path(Path({str(paste)!r}), load_ruleset(small_input=True))\n"
            "assert [i.cause.value for i in r.incidents] == ['illegal_memory_access'], r.incidents\n"
            "heavy = [m for m in ('numpy', 'detector.sources.flight_recorder.decode',"
            " 'detector.sources.flight_recorder.analysis') if m in sys.modules]\n"
            "assert not heavy, heavy\n"
            "from detector.sources.flight_recorder import analyse\n"
            "assert 'detector.sources.flight_recorder.analysis' in sys.modules\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "RANKDOCTOR_CACHE_DIR": str(tmp_path / "cache")})
    assert done.returncode == 0, done.stderr
