"""Untrusted text made safe to show: everything a log produced (log lines, file names, node
names, rule ids from user packs) passes through :func:`clean_line` before a terminal sees it, and
through :func:`html_text` before it goes into HTML or SVG."""

from __future__ import annotations

import html
import unicodedata

_BIDI_CONTROLS = frozenset("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def clean_line(text: str, limit: int | None = None, *, newlines: bool = False) -> str:
    """Make untrusted text safe to print: control, bidi and surrogate characters become
    visible escapes (``\\x1b``), tabs become spaces, and text past ``limit`` characters is cut
    with a note saying how much was left out. ``newlines`` keeps line breaks."""
    omitted = 0
    if limit is not None and len(text) > limit:
        omitted = len(text) - limit
        text = text[:limit]
    out: list[str] = []
    for ch in text:
        if ch == "\t":
            out.append(" ")
        elif ch == "\n" and newlines:
            out.append(ch)
        elif ch in _BIDI_CONTROLS or unicodedata.category(ch) in ("Cc", "Cs"):
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    if omitted:
        out.append(f" ... (+{omitted} chars)")
    return "".join(out)



def html_text(value: object, limit: int | None = None) -> str:
    """Untrusted text -> HTML/SVG text or attribute content (control characters made visible,
    then ``html.escape`` with quotes)."""
    return html.escape(clean_line(str(value), limit, newlines=True), quote=True)
