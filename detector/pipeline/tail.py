"""A file's tail: reading it (:func:`_read_tail`, again from the file for a scan that came back
from a worker without it, :func:`tail_of`), each tail line's rank and message (worked out
once), its Events, and the last activity per rank prefix (:func:`last_activity`).

Per-line Python work in the tail is for rank prefixes (one cheap test for the usual ``[rankN]:``
and plain lines) and the lines the last-activity walk visits; it is done once per file
(:attr:`FileScan.activity`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import BinaryIO

from detector.pipeline.filescan import LOOKBACK_LINES, MAX_LINE, FileScan
from detector.sources.lines import LineParser
from detector.sources.prefixes import Prefixed, PrefixStyle, quick_prefix, strip_prefix
from detector.sources.runs import FileKind
from detector.sources.timestamps import parse_timestamp, time_of_day
from detector.support.compressed import open_log, stream_size
from detector.support.text import CJK_TRAINING_DONE, decode_line, plain_text
from detector.types import TERMINAL_LINES, Event


def tail_of(scan: FileScan) -> list[str]:
    """``scan.tail_lines``, read again from the file (the same bytes: up to the size it had)
    when the scan came back from a worker without them."""
    if not scan.tail_lines and scan.tail_count and scan.tail_source is not None:
        tail_bytes, size = scan.tail_source
        try:
            fh, _st, _note = open_log(scan.file.path, scan.file.compressed)
            with fh:
                data = _tail_bytes(fh, tail_bytes, size)
        except OSError:
            return scan.tail_lines
        scan.tail_lines = _tail_text_lines(data, tail_bytes)
        scan.tail_first = max(1, scan.lines - len(scan.tail_lines) + 1)
    return scan.tail_lines


def _tail_key(scan: FileScan, index: int, style: PrefixStyle) -> tuple[int | None, bool, str]:
    """(rank, hinted, message) of ``scan.tail_lines[index]`` (as :func:`strip_prefix` gives
    them), worked out once."""
    keys = scan.tail_keys
    key = keys[index] if index < len(keys) else None
    if key is None or isinstance(key, int):
        raw = tail_of(scan)[index]
        quick = quick_prefix(raw, style)
        if quick is not None:
            key = (quick[0], False, raw[quick[2]:] if quick[2] else raw)
        else:
            pre = strip_prefix(raw, style)
            key = (pre.rank, pre.hinted, pre.message)
        if index < len(keys):
            keys[index] = key
    return key


def tail_message(scan: FileScan, index: int) -> str:
    """The message of ``scan.tail_lines[index]`` (its rank prefix removed)."""
    parser = scan.parser
    return _tail_key(scan, index, parser.style if parser is not None else PrefixStyle.BRACKETS)[2]


def _tail_prefixed(scan: FileScan, index: int, style: PrefixStyle) -> Prefixed:
    raw = tail_of(scan)[index]
    quick = quick_prefix(raw, style)
    if quick is not None:
        return Prefixed(raw[quick[2]:] if quick[2] else raw, quick[0], quick[1])
    return strip_prefix(raw, style)


def tail_event(scan: FileScan, index: int) -> Event:
    """The Event of ``scan.tail_lines[index]``; a line without a timestamp inherits the time of
    the nearest earlier stamped line of the tail."""
    parser = scan.parser
    assert parser is not None
    style = parser.style
    ev, stamp = parser.event_of(_tail_prefixed(scan, index, style), tail_of(scan)[index], scan.tail_first + index, None)
    if ev.time is None and (stamp is None or stamp.since_boot is None):
        for back in range(index - 1, max(-1, index - 1 - LOOKBACK_LINES), -1):
            prev = parser.lent_stamp(_tail_key(scan, back, style)[2])  # (vLLM's header times are not lent)
            if prev is not None and prev.time is not None:
                return Event(ev.file, ev.line, ev.kind, ev.text, ev.message, prev.time, True,
                             ev.rank, ev.local_rank, ev.node, ev.pid)
    return ev


OWN_PROGRESS_LINES = 5000  # lines after an exception read for its rank's own progress


def _local_of(scan: FileScan, index: int, style: PrefixStyle) -> int | None:
    """The local rank the prefix of ``scan.tail_lines[index]`` names (torchrun's ``[default3]:``)."""
    raw = tail_of(scan)[index]
    quick = quick_prefix(raw, style)
    return quick[1] if quick is not None else strip_prefix(raw, style).local_rank


def _same_rank(scan: FileScan, rank: int, local: int | None, index: int, style: PrefixStyle) -> bool:
    """Whether ``scan.tail_lines[index]`` is ``rank``'s: its prefix names that rank, or names
    only a local rank, ``local`` (a one-node log of ``[defaultN]:`` lines, the rank read from it)."""
    key = _tail_key(scan, index, style)
    if key[0] is not None or local is None:
        return key[0] == rank
    return _local_of(scan, index, style) == local


def line_local_rank(scan: FileScan, line: int) -> int | None:
    """The local rank that the prefix of the file's line ``line`` names, where the tail holds it and
    the prefix names no global rank (``[default3]:``); None otherwise."""
    index = line - scan.tail_first
    lines = tail_of(scan)
    if not 0 <= index < len(lines):
        return None
    style = scan.parser.style if scan.parser is not None else PrefixStyle.BRACKETS
    return _local_of(scan, index, style) if _tail_key(scan, index, style)[0] is None else None


def own_last_progress(scan: FileScan, line: int, rank: int, local: int | None = None) -> int | None:
    """In a file of several ranks' lines, the last line within :data:`OWN_PROGRESS_LINES` after
    ``line`` where ``rank`` itself (its prefix; its local rank ``local`` where the prefixes name
    only local ranks) shows training progress; None where the tail does not reach ``line`` or the
    rank shows none."""
    lines = tail_of(scan)
    start = line - scan.tail_first + 1
    if start < 1 or start > len(lines):
        return None
    style = scan.parser.style if scan.parser is not None else PrefixStyle.BRACKETS
    last = None
    for i in range(start, min(len(lines), start + OWN_PROGRESS_LINES)):
        if _same_rank(scan, rank, local, i, style) and is_progress(_tail_key(scan, i, style)[2]):
            last = scan.tail_first + i
    return last


COLLECTED_SPREAD = timedelta(minutes=1)  # a collector's stamps of progress lines this far apart: not one flush


def own_progress_stamped_after(scan: FileScan, line: int, rank: int | None, when: datetime, *, enough: int,
                               before: int | None = None, program_stamps: bool = False) -> int:
    """How many lines after ``line`` (within :data:`OWN_PROGRESS_LINES`, and before line ``before``
    where given) show ``rank``'s training progress (any rank's where ``rank`` is None: a file of one
    rank) stamped after ``when``; stops at ``enough``. None of them where the tail does not reach
    ``line``. ``program_stamps``: only lines whose program stamped them itself, behind a log
    platform's or collector's stamp (the collection time of a buffered stdout says nothing of when
    the program wrote it), or lines the collector stamped over more than :data:`COLLECTED_SPREAD`."""
    if scan.parser is None:
        return 0
    lines = tail_of(scan)
    start = line - scan.tail_first + 1
    if start < 1 or start > len(lines):
        return 0
    style = scan.parser.style
    found = 0
    end = min(len(lines), start + OWN_PROGRESS_LINES)
    collected: list[datetime] = []  # (program_stamps: the collector's stamps of lines the program did not stamp)
    if before is not None:
        end = min(end, before - scan.tail_first)
    for i in range(start, end):
        key = _tail_key(scan, i, style)
        if (rank is not None and key[0] != rank) or not is_progress(key[2]):
            continue
        stamp = scan.parser.stamp(key[2])
        inner = (parse_timestamp(key[2], year=scan.parser.year, pos=stamp.end, day_first=scan.parser.day_first)
                 if stamp is not None and stamp.end else None)
        if inner is not None and inner.time is not None:
            # a log platform's record time before the program's own stamp: the program's says when
            # the line was written (a buffered stdout is collected when it is flushed)
            stamp = inner
        elif program_stamps:
            if stamp is not None and stamp.time is not None and stamp.time > when:
                collected.append(stamp.time)
            continue
        else:
            stamp = stamp or scan.parser.header_stamp(lines[i])
        if stamp is not None and stamp.time is not None and stamp.time > when:
            found += 1
            if found >= enough:
                break
    if found < enough and len(collected) >= enough and max(collected) - min(collected) >= COLLECTED_SPREAD:
        # lines the collector stamped as they came, over minutes: written over minutes (one
        # buffer flushed at exit is collected within a second)
        return len(collected)
    return found


BEHIND_LINES = 4  # progress lines in a row stamped before the time asked about: the count ends


def progress_lines_after(scan: FileScan, when: datetime, *, enough: int, before: datetime | None = None) -> int:
    """How many of the file's tail lines, read from its end, show training progress stamped after
    ``when`` (and before ``before``, where given); stops at ``enough``, or at :data:`BEHIND_LINES`
    progress lines in a row stamped at or before ``when`` (one such line does not end the count:
    two loggers of one program may keep two zones' clocks, their lines interleaved)."""
    if scan.parser is None:
        return 0
    lines = tail_of(scan)
    style = scan.parser.style
    found = behind = 0
    for i in range(len(lines) - 1, max(-1, len(lines) - 1 - OWN_PROGRESS_LINES), -1):
        message = _tail_key(scan, i, style)[2]
        if not is_progress(message):
            continue
        stamp = scan.parser.stamp(message) or scan.parser.header_stamp(lines[i])
        if stamp is None or stamp.time is None:
            continue
        if stamp.time <= when:
            behind += 1
            if behind >= BEHIND_LINES:
                break
            continue
        behind = 0
        if before is not None and stamp.time >= before:
            continue
        found += 1
        if found >= enough:
            break
    return found


ACTIVITY_LINES = 20000
_ACTIVITY_JOIN_LINES = 200  # a tail this long is searched for a time of day at once first
_KERNEL_LINE = re.compile(r" kernel: |\bNVRM: ")  # a kernel line kept or pasted in a rank's log


def last_activity(scan: FileScan, *, max_lines: int = ACTIVITY_LINES) -> dict[int | None, datetime]:
    """The time of the last stamped line of the file, per rank prefix (None: lines without a
    prefix). Reads the tail backwards and stops once every prefix rank seen is placed. Worked
    out once per file read to its end (:attr:`FileScan.activity`)."""
    if scan.activity is not None and max_lines == ACTIVITY_LINES:
        return scan.activity
    parser = scan.parser
    out: dict[int | None, datetime] = {}
    if parser is None:
        return out
    style = parser.style
    stamp_of = parser.stamp
    clock = time_of_day
    keys = scan.tail_keys
    lines = tail_of(scan)
    if len(keys) != len(lines):
        keys[:] = [None] * len(lines)
    if len(lines) > _ACTIVITY_JOIN_LINES and clock("\n".join(lines)) is None:
        return out  # (no time of day anywhere in the tail: one search, not one a line)
    wanted = len(scan.prefix_ranks) + 1
    rank_log = scan.file.kind is FileKind.RANK_LOG
    for i in range(len(lines) - 1, max(-1, len(lines) - 1 - max_lines), -1):
        key = keys[i]
        # (a line of a rank already placed, its prefix read: no search for its time)
        if isinstance(key, int):  # a line with the rank prefix of the one before (_read_tail)
            if key in out:
                continue
        elif key is not None and key[0] in out:
            continue
        if clock(lines[i]) is None:
            continue  # (no time of day in the line: none in its message; NCCL's untimed INFO lines by the thousand)
        if key is None or isinstance(key, int):
            key = _tail_key(scan, i, style)
        rank = key[0]
        if rank in out:
            continue
        if rank is None and rank_log and _KERNEL_LINE.search(lines[i]) is not None:
            continue  # (a kernel line among a rank's, a journal's -k part after the unit's: the node's time, not the rank's)
        if clock(key[2]) is None:
            continue  # (no time of day in it: no wall-clock stamp; NCCL's untimed INFO lines by the thousand)
        stamp = stamp_of(key[2])
        if stamp is not None and stamp.time is not None:
            out[rank] = stamp.time
            if len(out) >= wanted:
                break
    return out


def tail_lines(data: bytes) -> list[str]:
    """The lines of a file's tail (whole lines), as :func:`decode_line` gives each: one decoding
    and one split for all of them (a line feed is never part of a UTF-8 sequence, so decoding
    the whole equals decoding each line)."""
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not plain_text(text):
        # tqdm redraws, a crash's NUL padding, terminal colours: each such line as decode_line gives it
        lines = [line if plain_text(line) else decode_line(line.encode("utf-8")) for line in lines]
    return lines


def _tail_bytes(fh: BinaryIO, tail_bytes: int, size: int) -> bytes:
    """The whole lines of the last ``tail_bytes`` of the file's first ``size`` bytes."""
    start = max(0, size - tail_bytes)
    fh.seek(start)
    data = fh.read(size - start)
    if start > 0:
        nl = data.find(b"\n")
        data = data[nl + 1 :] if nl >= 0 else b""
    return data


def _tail_text_lines(data: bytes, tail_bytes: int) -> list[str]:
    if tail_bytes <= MAX_LINE:
        return tail_lines(data)
    raws = data.split(b"\n")
    if raws and raws[-1] == b"":
        raws.pop()
    return [decode_line(raw[:MAX_LINE]) for raw in raws]


def _read_tail(fh: BinaryIO, scan: FileScan, parser: LineParser, tail_bytes: int, size: int | None = None) -> None:
    """``size``: where the file ended when it was opened (what its body was read up to), else its size now."""
    try:
        size = stream_size(fh) if size is None else size
        data = _tail_bytes(fh, tail_bytes, size)
    except OSError as exc:
        scan.warnings.append(f"{parser.f.display}: cannot read its end ({exc.strerror or exc})")
        return
    lines = _tail_text_lines(data, tail_bytes)
    scan.tail_first = max(1, scan.lines - len(lines) + 1)
    scan.tail_lines = lines
    scan.tail_source = (tail_bytes, size)
    scan.tail_count = len(lines)
    # the rank prefixes of the tail's lines (those that may carry one): one test for the usual
    # shapes, strip_prefix for the rest; each line's rank (and message, where worked out) kept
    # for last_activity. A line that begins with the same "[rankN]:" as the one before and has
    # no other "[" has that rank (every prefix that could name another begins with "["):
    # str.startswith and str.find are all it costs.
    style = parser.style
    srun = style is PrefixStyle.SRUN_LABEL
    plain = style is PrefixStyle.BRACKETS or style is PrefixStyle.NONE
    ranks = scan.prefix_ranks
    keys: list[tuple[int | None, bool, str] | int | None] = [None] * len(lines)
    scan.tail_keys = keys
    same = ""  # the "[rankN]:" of the last line read with one
    same_rank = -1
    for i, raw in enumerate(lines):
        if srun or raw.startswith("["):
            if same and raw.startswith(same) and raw.find("[", len(same)) < 0:
                keys[i] = same_rank
                continue
            quick = quick_prefix(raw, style)
            if quick is not None:
                rank = quick[0]
                keys[i] = (rank, False, raw[quick[2]:])
                if rank is not None:
                    ranks.add(rank)
                    if plain:
                        same, same_rank = raw[: quick[2]].rstrip(), rank
                continue
            pre = strip_prefix(raw, style)
            keys[i] = (pre.rank, pre.hinted, pre.message)
            if pre.rank is not None and not pre.hinted:
                ranks.add(pre.rank)


# a line of training progress: a step or iteration count, a progress bar, the end of training
_PROGRESS = re.compile(
    r"\b(?:global[_ ]?step|step|iter(?:ation)?|epoch)\b\s{0,3}[:=#]?\s{0,3}\[?\s{0,3}[0-9]|(?<![\w/])it=[0-9]"
    r"|[0-9]{1,3}%\|[^|]{0,200}\|\s{0,4}[0-9]{1,12}/[0-9]{1,12} \["
    r"|\b(?:training|train|run|job|fine-?tuning)\s{1,3}(?:is\s)?(?:completed|finished|done|complete)\b"
    r"|train_runtime|\{'loss': "
    # (a trainer's own lines in Chinese: "第 50 步" step 50, "第 3 轮" epoch 3, "训练完成" training done)
    r"|第\s{0,2}[0-9]{1,9}\s{0,2}(?:步|轮|次迭代)|训练(?:完成|结束)",
    re.IGNORECASE,
)
def last_progress_line(scan: FileScan) -> int | None:
    """The line number of the last of the file's last :data:`TERMINAL_LINES` lines that shows
    training progress, or None (a few substring tests first: the regex runs on few lines)."""
    lines = tail_of(scan)
    for i in range(len(lines) - 1, max(-1, len(lines) - 1 - TERMINAL_LINES), -1):
        if is_progress(lines[i]):
            return scan.tail_first + i
    return None


_COMPLETED = re.compile(
    r"train_runtime|\b(?:training|train|run|job|fine-?tuning)\s{1,3}(?:is\s)?(?:completed|finished|done|complete)\b"
    # detectron2's end of training (its final evaluation may follow)
    r"|\btotal training time: [0-9]"
    # Lightning's: "`Trainer.fit` stopped: `max_epochs=10` reached."
    r"|\btrainer\.fit`? stopped: `?max_(?:epochs|steps|time)=[^`\s]{1,40}`? reached"
    # a training loop's own word that it reached its last step ("reached max_steps=5200; saving
    # final checkpoint", "max_steps reached")
    r"|\breached max[_ ]steps\b|\bmax[_ ]steps(?: ?= ?[0-9]{1,12})? reached\b"
    # Megatron-LM's print_datetime after its training loop: "[after training is done] datetime: ..."
    r"|\[after training is done\]"
    # the same in Chinese, Japanese and Korean ("训练完成. steps=6500", "学習完了")
    r"|" + CJK_TRAINING_DONE,
    re.IGNORECASE)
COMPLETED_LINES = 40  # a file's last lines where a note that training completed counts


def says_completed(scan: FileScan) -> bool:
    """Among the file's last :data:`COMPLETED_LINES` lines, one says that training completed
    ("training finished: 530 steps", Hugging Face's final "train_runtime" summary) and no line of
    training progress follows it (an epoch's or a phase's end, training going on after it, is no
    end of the run)."""
    return completed_line(scan) is not None


def progress_between(scan: FileScan, after: int, before: int, *, enough: int) -> int:
    """How many lines of the file's tail strictly between line numbers ``after`` and ``before``
    show training progress (counting stops at ``enough``; lines before the tail are not seen)."""
    tail = tail_of(scan)
    seen = 0
    for i in range(max(0, after + 1 - scan.tail_first), min(len(tail), before - scan.tail_first)):
        if is_progress(tail[i]):
            seen += 1
            if seen >= enough:
                break
    return seen


def tail_line(scan: FileScan, line: int) -> str:
    """The text of line number ``line`` of the file's tail ("" outside it)."""
    tail = tail_of(scan)
    i = line - scan.tail_first
    return tail[i] if 0 <= i < len(tail) else ""


# a progress bar at its total ("100%|##########| 4000/4000 [6:38:23<00:00, 5.14s/it]"): Hugging
# Face's trainer closes its bar after its final summary, which prints the bar once more
_FINISHED_BAR = re.compile(r"100%\|[^|]{0,200}\|\s{0,4}([0-9]{1,12})/\1 \[")


def _says_done(line: str) -> bool | None:
    """Whether ``line`` says that training completed (:data:`_COMPLETED`): True; False where its
    word is an epoch's or a phase's end ("epoch 3 finished", "starting ... done"); None where it
    says neither (a few substring tests first)."""
    low = line.lower()
    if not (("train" in low or "run" in low or "job" in low or "tuning" in low or "max_steps" in low or "max steps" in low
             or "训" in low or "訓" in low or "学習" in low or "학습" in low)
            and _COMPLETED.search(low)):
        return None
    return "train_runtime" in low or not ("epoch" in low or "starting" in low)


# a checkpoint's save that completed, which names its step or iteration and which a run prints
# after its last step ("successfully saved checkpoint from iteration 18900"); one that only began
# ("saving checkpoint at iteration 18900") may be where the run hung
_SAVED = re.compile(r"\b(?:successfully )?saved\b.{0,40}\bcheckpoint|\bcheckpoint\b.{0,40}\bsaved\b", re.IGNORECASE)


_SAVE_BEGUN = re.compile(r"\bsav(?:e|ing)\b.{0,40}\bcheckpoint|\bcheckpoint\b.{0,40}\bsav(?:e|ing)\b", re.IGNORECASE)


def _goes_on(line: str, saved_later: bool = False) -> bool:
    """Training progress that is not a progress bar at its end (:data:`_FINISHED_BAR`) nor a
    checkpoint's save that completed (:data:`_SAVED`; or its start, where ``saved_later``: a
    completed save follows it): the run saves its last step after it said it was done."""
    return (is_progress(line) and _FINISHED_BAR.search(line[-400:]) is None and _SAVED.search(line) is None
            and not (saved_later and _SAVE_BEGUN.search(line)))


def _last_saved(lines: Sequence[str]) -> int:
    """The index of the last of ``lines`` that says a checkpoint's save completed (-1: none)."""
    for i in range(len(lines) - 1, -1, -1):
        if "aved" in lines[i] and _SAVED.search(lines[i]):
            return i
    return -1


def completed_line(scan: FileScan) -> int | None:
    """The line number of the file's word that training completed (:func:`says_completed`), or
    None."""
    tail = tail_of(scan)
    lines = tail[-COMPLETED_LINES:]
    saved = _last_saved(lines)
    for i in range(len(lines) - 1, -1, -1):
        done = _says_done(lines[i])
        if done is not None:
            if not done or any(_goes_on(later, i + 1 + k < saved) for k, later in enumerate(lines[i + 1:])):
                return None
            return scan.tail_first + len(tail) - len(lines) + i
        if _goes_on(lines[i], i < saved):
            return None  # progress after the last completion line, or no completion line at all
    return None


TEARDOWN_LINES = 20000  # a teardown's lines after a word that training completed, at most


def completions(scan: FileScan) -> list[tuple[int, bool, int | None]]:
    """The line numbers of the file's tail that say training completed (True) or show training
    progress after which it went on (False), in order, each with the rank its prefix names (None:
    no prefix): one pass over the tail, which :func:`completed_before` then reads for any line."""
    tail = tail_of(scan)
    style = scan.parser.style if scan.parser is not None else PrefixStyle.BRACKETS
    out: list[tuple[int, bool, int | None]] = []
    saved = _last_saved(tail)
    for i, text in enumerate(tail):
        done = _says_done(text)
        if done is not None:
            out.append((scan.tail_first + i, done, _tail_key(scan, i, style)[0]))
        elif _goes_on(text, i < saved):
            out.append((scan.tail_first + i, False, None))
    return out


def completed_before(marks: list[tuple[int, bool, int | None]], line: int, rank: int | None) -> bool:
    """Of a file's :func:`completions`, the last before line number ``line`` (within
    :data:`TEARDOWN_LINES`) says that training completed, for the job (no rank's prefix) or for
    ``rank`` itself: no progress came between, and the run had finished before ``line`` was written
    (a job of hundreds of ranks prints as many lines on its way out). Rank 0's word that it
    completed is not another rank's (with uneven data it finishes first, the others wait for it)."""
    i = bisect.bisect_left(marks, line, key=lambda m: m[0]) - 1
    if i < 0:
        return False
    at, done, said_by = marks[i]
    return done and line - at <= TEARDOWN_LINES and (said_by is None or said_by == rank)


# an inference server's orderly end (uvicorn's, under vLLM, SGLang and the OpenAI-style frontends;
# Dynamo's frontend): it served until it was told to stop
_SERVER_END = re.compile(r"Application shutdown complete\.|Finished server process \[[0-9]{1,10}\]"
                         r"|HTTP service shutdown complete")
SERVER_END_LINES = 10  # a file's last lines where a server's orderly end counts


def server_shut_down(scan: FileScan) -> bool:
    """Among the file's last :data:`SERVER_END_LINES` lines, an inference server's word that it
    shut down in order (uvicorn's "Application shutdown complete.", "Finished server process [N]")."""
    return any(_SERVER_END.search(line) is not None for line in tail_of(scan)[-SERVER_END_LINES:])


# an inference server's progress: a generation request answered (uvicorn's access log of a POST to
# the OpenAI-style or generate routes; not a health check or a metrics scrape), the engine's
# periodic report of tokens generated (vLLM's, not 0.0), SGLang's batches with requests in them
_SERVING = re.compile(r'"post /(?:v1/|generate|infer)\S{0,300} http/[0-9.]{1,3}" 200\b'
                      r"|avg generation throughput: (?!0\.0 )[0-9]|decode batch\. #running-req: [1-9]|prefill batch\. #new-seq: [1-9]")


def is_progress(line: str) -> bool:
    """``line`` shows training progress (:data:`_PROGRESS`), or a server's serving
    (:data:`_SERVING`); a few substring tests first."""
    low = line.lower()
    if "*** step " in low or "*** job " in low:
        return False  # Slurm's "*** STEP 4165.0 ON node CANCELLED AT ..." is no training step
    if ("http/" in low or "throughput: " in low or " batch. #" in low) and _SERVING.search(low) is not None:
        return True
    return ("step" in low or "iter" in low or "it=" in low or "epoch" in low or "%|" in low or "train" in low or "run " in low
            or "job " in low or "tuning" in low or "'loss'" in low or "第" in low or "训练" in low) and _PROGRESS.search(low) is not None


# where a paste's log ends and the notes pasted after it begin: a markdown fence (alone on its
# line, a language's name after it at most) closing the log's block, PyTorch's collect_env banner
_FENCE = re.compile(r"\s{0,3}(?:```|~~~)[\w+.-]{0,20}\s*$")
_ENV_BANNER = "Collecting environment information"
# a line of log after such a mark: a time of day near the line's start (ISO's "T10:00:00" too), a
# traceback, NCCL's lines; training's progress (_PROGRESS) counts as log too
_LOG_AFTER = re.compile(r"^.{0,40}(?:\b|T)[0-9]{1,2}:[0-9]{2}:[0-9]{2}\b|Traceback \(most recent|^\s{0,8}File \"|NCCL (?:INFO|WARN)")
NOTES_LINES = 400  # at most this many lines of notes after the log


def notes_start(scan: FileScan) -> int | None:
    """The line number of the first line of notes a paste ends on (the fence that closes the
    log's block, collect_env's output), where nothing after it reads as log (a time of day, a
    traceback, NCCL's lines, training's progress); None when the file ends in log. A file's
    "last lines" are its log's. Fences are counted from the file's start (the tail must hold it):
    only a closing one marks."""
    lines = tail_of(scan)
    if not lines or scan.tail_first != 1:
        return None
    first = max(0, len(lines) - NOTES_LINES)
    fences = sum(1 for line in lines[:first] if ("`" in line or "~" in line) and _FENCE.match(line))
    mark: int | None = None
    for i in range(first, len(lines)):
        line = lines[i]
        fence = ("`" in line or "~" in line) and _FENCE.match(line) is not None
        if fence:
            fences += 1
        if mark is None:
            if fence and fences % 2 == 0 and any(x.strip() for x in lines[:i]):
                mark = i  # a block closes: what follows may be notes
            elif line.lstrip().startswith(_ENV_BANNER):
                mark = i
            continue
        if fence and fences % 2:
            # another block opens after the mark: more log pasted (a second rank's, a second
            # comment's), unless it holds collect_env's output
            following = next((x for x in lines[i + 1:] if x.strip()), "")
            if not following.lstrip().startswith(_ENV_BANNER):
                mark = None
        elif (_LOG_AFTER.search(line) and not line.startswith("Python version:")) or is_progress(line):
            mark = None  # log again after the mark: the block was the log's own; look further
    return None if mark is None else scan.tail_first + mark

