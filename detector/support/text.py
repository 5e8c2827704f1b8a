"""Text from log files: one decoding of a raw line and one test for binary files, shared by
replay, the sidecar and ``rules coverage`` so that they agree about the same bytes."""

from __future__ import annotations

import re

_CONTROL = frozenset(range(0, 9)) | frozenset(range(14, 27)) | frozenset(range(28, 32))


def decode_line(raw: bytes) -> str:
    """A raw line as text: invalid UTF-8 replaced; for tqdm redraws (``\\r`` inside the line),
    the last segment, which is what a terminal shows; NULs (a crash's padding, see
    :func:`is_binary`) removed, so that the text written after them is matched from its start;
    terminal colour and style codes (colorlog, rich, loguru) removed likewise."""
    text = raw.decode("utf-8", "replace")
    if "\0" in text:
        text = text.replace("\0", "")
    if "\x1b" in text:
        text = strip_ansi(text)
    if "\r" in text:
        text = text.rstrip("\r")
        if "\r" in text:
            segments = text.split("\r")
            last = segments[-1]
            if last and _PROGRESS.search(last):
                # a progress bar redrawn over the line another process (or thread) had just
                # written, before its newline ("RuntimeError: ...\r 50%|#####| 50/100"): the line
                # is the last segment that is no bar, where one is
                last = next((seg for seg in reversed(segments) if seg.strip() and not _PROGRESS.search(seg)), last)
            text = last or text.replace("\r", " ")
    return text


# a progress bar's redraw (tqdm's "50%|#####     | 50/100 [00:05<00:05, 9.8it/s]", rich's and
# Lightning's bars): its percentage and bar, or its rate or its elapsed-and-left times
_PROGRESS = re.compile(r"\d%\||[0-9?](?:it/s|s/it)\b|\[\d{1,3}:\d\d<")


def plain_text(text: str) -> bool:
    """Whether :func:`decode_line` leaves the decoded ``text`` as it is (no carriage return, NUL
    or escape in it): the cheap test that lets a hot path decode with ``bytes.decode`` alone."""
    return "\r" not in text and "\0" not in text and "\x1b" not in text


# ECMA-48 control sequences (colours, styles, cursor moves), operating-system commands (rich's
# OSC 8 hyperlinks: their payload goes too), charset designations (tput sgr0's "ESC ( B") and the
# two-byte escapes
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]{0,2048}(?:\x07|\x1b\\)?|[()*+][0-9A-Za-z]|[@-Z\\-_])")


def strip_ansi(text: str) -> str:
    """``text`` without terminal escape sequences (a coloured ``ValueError`` reads as one)."""
    return _ANSI.sub("", text)


def is_binary(head: bytes) -> bool:
    """A file whose start is mostly not text (control bytes, invalid UTF-8). Runs of NULs do not
    count: a log that was being written when its node crashed or lost power comes back with
    blocks of NULs where its last writes were, and a preallocated log starts with them; the text
    around them is still the log. Nor do backspaces and bells: Keras' progress bar writes a line's
    width of backspaces before each redraw, to a file as to a terminal."""
    head = head.replace(b"\0", b"").replace(b"\x08", b"").replace(b"\x07", b"")
    if not head:
        return False
    text = head.decode("utf-8", "replace")
    bad = text.count("\ufffd") + sum(1 for ch in text if ord(ch) in _CONTROL)
    return bad > 0.3 * len(text)


# training's word that it completed in Chinese, Japanese or Korean ("训练完成. steps=6500", "学習完了"):
# a pattern's text, for the English patterns of the end of training to take in (pipeline.tail, stats.steps)
CJK_TRAINING_DONE = r"训练(?:已)?(?:完成|结束|完毕)|訓練(?:完成|結束)|学習(?:が)?(?:完了|終了)|학습 (?:완료|종료)"
