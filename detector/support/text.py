"""Text from log files: one decoding of a raw line and one test for binary files, shared by
replay, the sidecar and ``rules coverage`` so that they agree about the same bytes."""

from __future__ import annotations

_CONTROL = frozenset(range(0, 9)) | frozenset(range(14, 27)) | frozenset(range(28, 32))


def decode_line(raw: bytes) -> str:
    """A raw line as text: invalid UTF-8 replaced; for tqdm redraws (``\\r`` inside the line),
    the last segment, which is what a terminal shows."""
    text = raw.decode("utf-8", "replace")
    if "\r" in text:
        text = text.rstrip("\r")
        if "\r" in text:
            text = text.rsplit("\r", 1)[-1] or text.replace("\r", " ")
    return text


def is_binary(head: bytes) -> bool:
    """A file whose start is mostly not text (NULs, control bytes, invalid UTF-8)."""
    if not head:
        return False
    text = head.decode("utf-8", "replace")
    bad = text.count("\ufffd") + sum(1 for ch in text if ord(ch) in _CONTROL)
    return bad > 0.3 * len(text)
