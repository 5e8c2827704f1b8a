"""Logs as their bytes, whether stored plain or gzip-compressed (a rotated ``kern.log.2.gz``,
``rank3.log.gz``, ``nvidia-bug-report.log.gz``): one opener for everything that reads a log.

A compressed log is inflated into memory, at most :data:`MAX_INFLATED` bytes of it (a gzip bomb
costs that much and no more); a stream cut short (a copy interrupted, a disk that filled) gives
what it holds up to the cut, with a note. bzip2 and xz streams are read the same way (also under
a plain name). Archives (``.tar.gz``, ``.zip``) are not opened here: run discovery unpacks them
(:mod:`detector.sources.archives`)."""

from __future__ import annotations

import bz2
import codecs
import errno
import html
import io
import json
import lzma
import os
import re
import stat
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from detector.support.exports import (
    export_records,
    looks_like_csv_export,
    looks_like_jsonl_export,
    looks_like_yaml_export,
)
from detector.support.text import strip_ansi

MAX_INFLATED = 512 << 20  # bytes of a compressed log read, inflated
NOTEBOOK_MAX = 64 << 20  # a Jupyter notebook larger than this is not parsed (its JSON is read whole)
_CHUNK = 1 << 20
_ARCHIVES = (".tar.gz", ".tgz")
GZIP_MAGIC = b"\x1f\x8b"
_GZIP = 16 + zlib.MAX_WBITS  # a gzip header and trailer around the deflate stream


_COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")


def is_compressed_log_name(name: str) -> bool:
    """A gzip-, bzip2- or xz-compressed file that is not an archive of several files."""
    low = name.lower()
    return (low.endswith(_COMPRESSED_SUFFIXES) and not low.endswith(_ARCHIVES) and ".tar." not in low
            and len(low) > 4)


def inner_name(name: str) -> str:
    """The name the file had before it was compressed (``kern.log.2`` for ``kern.log.2.gz``)."""
    if not is_compressed_log_name(name):
        return name
    return name[: name.rfind(".")]


BZIP2_MAGIC = b"BZh"
XZ_MAGIC = b"\xfd7zXZ\x00"


def compressed_head(head: bytes) -> bool:
    """Whether a file's first bytes are a gzip, bzip2 or xz stream's."""
    return head.startswith((GZIP_MAGIC, XZ_MAGIC)) or (head.startswith(BZIP2_MAGIC) and head[3:4].isdigit())


def inflate(raw: BinaryIO, limit: int = MAX_INFLATED) -> tuple[bytes, str | None]:
    """The inflated bytes of the gzip stream ``raw`` (several members in a row, as ``cat a.gz
    b.gz`` makes, read one after the other), up to ``limit``, and a note when they are not all of
    it (cut at the limit, or the stream ends early or is damaged). A bzip2 or xz stream is read
    the same way (:func:`_decompress`). Raises OSError when not even its start inflates (not
    compressed at all, or empty)."""
    pending = raw.read(_CHUNK)
    if pending.startswith(BZIP2_MAGIC):
        return _decompress(raw, pending, limit, bz2.BZ2Decompressor, "bzip2")
    if pending.startswith(XZ_MAGIC):
        return _decompress(raw, pending, limit, lzma.LZMADecompressor, "xz")
    out = bytearray()
    note = None
    d = zlib.decompressobj(_GZIP)
    header = pending.startswith(GZIP_MAGIC)  # (a stream cut before any text still began as gzip)
    try:
        while len(out) <= limit:
            if not pending:
                pending = raw.read(_CHUNK)
                if not pending:
                    if not d.eof:
                        if not out:
                            raise OSError("a gzip stream cut short before any of its text (a copy interrupted?)"
                                          if header else "empty, or not a gzip file")
                        note = "compressed stream ends early (a cut copy): read up to the cut"
                    break
            if d.eof:  # the next member, or padding after the last one
                if not pending.strip(b"\0"):
                    pending = b""
                    continue
                d = zlib.decompressobj(_GZIP)
            out += d.decompress(pending, limit + 1 - len(out))
            pending = d.unconsumed_tail or d.unused_data
    except zlib.error as exc:
        if not out:
            raise OSError(f"not a readable gzip file ({exc})") from None
        note = f"compressed stream damaged ({exc}): read up to the damage"
    if len(out) > limit:
        del out[limit:]
        note = f"more than {limit >> 20} MiB once inflated: read its first {limit >> 20} MiB"
    return bytes(out), note


def _decompress(raw: BinaryIO, pending: bytes, limit: int, make: Callable[[], Any], what: str) -> tuple[bytes, str | None]:
    """:func:`inflate` of a bzip2 or xz stream (``make``: its decompressor), streams in a row read
    one after the other, ``pending`` its first bytes read."""
    out = bytearray()
    note = None
    d = make()
    try:
        while len(out) <= limit:
            if d.eof:  # the next stream, or padding after the last one (xz pads streams with NULs)
                pending = (d.unused_data + pending).lstrip(b"\0")
                if not pending:
                    pending = raw.read(_CHUNK)
                    if not pending.strip(b"\0"):
                        break
                    continue
                d = make()
            if d.needs_input:
                if not pending:
                    pending = raw.read(_CHUNK)
                    if not pending:
                        note = "compressed stream ends early (a cut copy): read up to the cut"
                        break
                chunk, pending = pending, b""
            else:
                chunk = b""
            out += d.decompress(chunk, limit + 1 - len(out))
    except (OSError, EOFError, ValueError, lzma.LZMAError) as exc:
        if not out:
            raise OSError(f"not a readable {what} file ({exc})") from None
        note = f"compressed stream damaged ({exc}): read up to the damage"
    if not out and note is not None:
        raise OSError(f"a {what} stream cut short before any of its text (a copy interrupted?)")
    if len(out) > limit:
        del out[limit:]
        note = f"more than {limit >> 20} MiB once inflated: read its first {limit >> 20} MiB"
    return bytes(out), note


UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_UTF32_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"))
WIDE_HEAD = 256  # bytes looked at for text in a wide encoding without its byte-order mark


def wide_encoding(head: bytes) -> str | None:
    """The codec of a text written in UTF-16 or UTF-32 -- with its byte-order mark (what Windows
    PowerShell's ``>`` writes) or without one (a .NET or Java writer's UTF-16LE, a converter's
    output): read from the NUL bytes of its first :data:`WIDE_HEAD` bytes, where ASCII text in
    those encodings keeps its NULs in fixed places. None for any other text."""
    for bom, codec in _UTF32_BOMS:
        if head.startswith(bom):
            return codec
    if head.startswith(UTF16_BOMS):
        return "utf-16"
    head = head[:WIDE_HEAD]
    if len(head) < 16 or b"\0" not in head:
        return None
    for width, codec, zero in ((4, "utf-32-le", (1, 2, 3)), (4, "utf-32-be", (0, 1, 2)),
                               (2, "utf-16-le", (1,)), (2, "utf-16-be", (0,))):
        units = [head[i:i + width] for i in range(0, len(head) - width + 1, width)]
        nul = sum(1 for u in units if all(u[k] == 0 for k in zero))
        text = sum(1 for u in units if any(u[k] != 0 for k in range(width) if k not in zero))
        if nul >= 0.9 * len(units) and text >= 0.9 * len(units):
            return codec
    return None


_MAGIC_BYTES = 263  # a tar header's "ustar" is at byte 257
# compressed streams by their first bytes: under a plain name, xz and bzip2 are read inflated,
# zstd is not read (its module is no dependency)
_MAGICS = ((b"\xfd7zXZ\x00", "xz"), (b"\x28\xb5\x2f\xfd", "zstd"), (b"BZh", "bzip2"))
_BZIP2_BLOCKS = (b"1AY&SY", b"\x17rE8P\x90")  # after "BZh<level>": a block, or the end of an empty stream


def unsupported_format(head: bytes, name: str) -> str | None:
    """The compression or archive format of a file that begins with ``head`` and that
    :func:`open_log` does not read as text (xz, zstd, bzip2, a tar archive, a gzip-compressed
    tar archive opened as plain), or None. ``name``: the file's name (a ``.tar.gz`` is gzip
    inside)."""
    low = name.lower()
    for magic, fmt in _MAGICS:
        if head.startswith(magic) and (fmt != "bzip2" or (head[3:4].isdigit() and head[4:10] in _BZIP2_BLOCKS)):
            return f"tar.{fmt}" if ".tar." in low or low.endswith((".tbz2", ".txz", ".tzst")) else fmt
    if head.startswith(GZIP_MAGIC) and low.endswith(_ARCHIVES):
        return "tar.gz"
    if head[257:262] == b"ustar" and head[262:263] in (b"\0", b" "):
        return "tar"
    return None


def open_regular(path: Path | str) -> BinaryIO:
    """``path`` opened for reading when it is a regular file; else OSError. A FIFO's open would
    wait for a writer (forever, and the signal that should stop the process waits with it) and a
    device such as /dev/zero never ends: looked at before any open, and again on the descriptor
    opened (O_NONBLOCK: a file swapped for a FIFO in between opens at once)."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise OSError(errno.EINVAL, "not a regular file")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


_WIDE_NAME = {"utf-16": "UTF-16", "utf-32": "UTF-32", "utf-16-le": "UTF-16LE", "utf-16-be": "UTF-16BE",
              "utf-32-le": "UTF-32LE", "utf-32-be": "UTF-32BE"}


LEGACY_HEAD = 64 << 10  # bytes looked at for text in a legacy (Windows code page) encoding
_LEGACY_NAME = {"gb18030": "GBK (Chinese Windows' code page 936)", "cp932": "Shift-JIS (Japanese Windows' code page 932)",
                "cp949": "EUC-KR (Korean Windows' code page 949)", "cp1251": "Windows-1251 (Cyrillic)",
                "cp1252": "Windows-1252 (Western European)"}
_HIGH_RUN = re.compile(rb"[\x80-\xff]+")


def legacy_encoding(head: bytes) -> str | None:
    """The code page of a text written in a legacy encoding rather than UTF-8 -- what Python on a
    Chinese or Japanese Windows machine writes when its output is redirected to a file (GBK,
    Shift-JIS), or a Western one's Windows-1252 -- read from the first :data:`LEGACY_HEAD` bytes.
    None for ASCII, for UTF-8 (a few broken sequences in it included), for binary data and for
    text no candidate reads cleanly: those stay as they are, read as UTF-8 with replacements."""
    if head.isascii():
        return None
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
        return None
    except UnicodeDecodeError:
        pass
    text = head.decode("utf-8", "replace")
    bad = text.count("\ufffd")
    good = sum(1 for ch in text if ch > "\x7f" and ch != "\ufffd")
    if sum(1 for b in head if b < 9 or 13 < b < 27 or 27 < b < 32) > len(head) // 100:
        return None  # (binary data)
    # (the lines that are not UTF-8, which a conversion changes, tell the code page: a script's
    # banner saved in GBK may come before a program's own UTF-8 lines)
    lines = head.split(b"\n")[:-1] or [head]
    foreign = [line for line in lines if not line.isascii() and not _is_utf8(line)]
    if not foreign:
        return None
    utf8 = sum(len(line) for line in lines if not line.isascii()) - sum(len(line) for line in foreign)
    if good >= bad and utf8 >= sum(len(line) for line in foreign):
        return None  # (UTF-8 with some damage)
    head = b"\n".join(foreign) + b"\n"
    if _reads(head, "gb18030"):
        pairs = re.findall(rb"[\x81-\xfe][\x40-\x7e\x80-\xfe]", head)
        euc = sum(1 for p in pairs if 0xA1 <= p[0] <= 0xF7 and p[1] >= 0xA1)
        if pairs and euc >= 0.8 * len(pairs):
            # (EUC's area: GB2312's hanzi and punctuation Chinese text is made of -- or Korean
            # text's hangul, every one of whose syllables has a first byte up to 0xC8)
            syllables = [p for p in pairs if p[0] >= 0xB0 and p[1] >= 0xA1]
            korean = bool(syllables) and all(p[0] <= 0xC8 for p in syllables) and _reads(head, "cp949")
            return "cp949" if korean and len(syllables) >= 4 else "gb18030"
    japanese = _decoded(head, "cp932")
    if (japanese and sum(1 for ch in japanese if "\u3000" <= ch <= "\u9fff" or "\uff00" <= ch <= "\uffef") >= 0.9 * len(japanese)
            and sum(1 for ch in japanese if "\u3040" <= ch <= "\u30ff") >= 0.2 * len(japanese)):
        return "cp932"  # (kanji, full-width forms and the kana that Japanese text is never without)
    runs = [len(m) for m in _HIGH_RUN.findall(head)]
    if sum(1 for n in runs if n == 1) >= 0.7 * len(runs) and _decoded(head, "cp1252") is not None:
        return "cp1252"  # (single accented letters between plain ones)
    russian = _decoded(head, "cp1251")
    if (russian and len(russian) >= 8 and len(russian) >= 3 * len(runs)
            and sum(1 for ch in russian if "\u0400" <= ch <= "\u04ff") >= 0.9 * len(russian)):
        return "cp1251"  # (words of Cyrillic letters)
    return None


def _is_utf8(line: bytes) -> bool:
    try:
        line.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _from_legacy(data: bytes, codec: str) -> bytes:
    """Text in a code page (:func:`legacy_encoding`) as UTF-8, line by line: a line that is UTF-8
    already stays as it is (a script's banner saved in GBK, then a program's own UTF-8 output)."""
    out = []
    for line in data.split(b"\n"):
        if not line.isascii() and not _is_utf8(line):
            line = line.decode(codec, "replace").encode("utf-8")
        out.append(line)
    return b"\n".join(out)


def _decoded(head: bytes, codec: str) -> str | None:
    """``head``'s characters beyond ASCII decoded in ``codec`` (a character cut at its end aside),
    or None where it does not decode without an error."""
    try:
        text = codecs.getincrementaldecoder(codec)().decode(head, final=False)
    except UnicodeDecodeError:
        return None
    return "".join(ch for ch in text if ch > "\x7f")


def _reads(head: bytes, codec: str) -> bool:
    """Whether ``head`` decodes in ``codec`` without an error (a character cut at its end aside)."""
    return _decoded(head, codec) is not None


def _from_wide(data: bytes, codec: str) -> bytes:
    """Text in UTF-16 or UTF-32 (:func:`wide_encoding`) as UTF-8."""
    width = 4 if codec.startswith("utf-32") else 2
    return data[:len(data) - len(data) % width].decode(codec, "replace").encode("utf-8")


def open_log(path: Path | str, compressed: bool) -> tuple[BinaryIO, os.stat_result, str | None]:
    """A log's bytes as a seekable binary stream, the stat of the file opened (its identity and,
    plain, its size) and a note about a compressed log read in part. A log written as UTF-16 or
    UTF-32 (:func:`wide_encoding`: Windows PowerShell's ``>``, a .NET writer) is given as UTF-8,
    at most :data:`MAX_INFLATED` bytes of it read, with a note. Raises OSError."""
    fh = open_regular(path)
    wide: str | None = None
    legacy: str | None = None
    try:
        st = os.fstat(fh.fileno())
        if not compressed and Path(path).suffix.lower() == ".ipynb":
            if st.st_size > NOTEBOOK_MAX:
                raise OSError(f"a notebook of {st.st_size >> 20} MiB, larger than the {NOTEBOOK_MAX >> 20} MiB read: "
                              "save its output as text (jupyter nbconvert --to script, or copy the cell's output)")
            text = _converted("notebook", st, lambda: notebook_outputs(fh.read(NOTEBOOK_MAX)))
            if text is not None:
                fh.close()
                return io.BytesIO(text), st, "a Jupyter notebook, read as its cells' outputs"
            fh.seek(0)
        if not compressed and Path(path).suffix.lower() == ".cast":
            cast = _converted("recording", st, lambda: asciinema_output(fh.read(NOTEBOOK_MAX)))
            if cast is not None:
                fh.close()
                return io.BytesIO(cast), st, "an asciinema recording, read as the terminal's output" + (
                    f" (only its first {NOTEBOOK_MAX >> 20} MiB)" if st.st_size > NOTEBOOK_MAX else "")
            fh.seek(0)
        export = None if compressed else _export_kind(Path(path), fh)
        if export is not None:
            lines = _export_lines(fh, st, export)
            if lines is not None:
                fh.close()
                told = "a log platform's export, read as its records, oldest first" + (
                    f" (only its first {MAX_INFLATED >> 20} MiB)" if st.st_size > MAX_INFLATED else "")
                return io.BytesIO(lines), st, told
            fh.seek(0)
        head = b"" if compressed else fh.read(_MAGIC_BYTES)
        fh.seek(0)
        unsupported = unsupported_format(head, Path(path).name) if head else None
        if unsupported in ("xz", "bzip2"):
            compressed = True  # (a bzip2 or xz stream under a plain name: read inflated)
        if not compressed:
            if unsupported is not None:
                raise OSError(f"compressed with an unsupported format ({unsupported})"
                              if unsupported != "tar" else "an archive (tar), not a log: extract it")
            wide = wide_encoding(head)
            if wide is None:
                legacy = legacy_encoding(fh.read(LEGACY_HEAD))
                fh.seek(0)
            if wide is None and legacy is None:
                if st.st_size <= HTML_PASTE_BYTES and _html_escaped(fh):
                    decoded = _converted("html", st, lambda: _unescape(fh.read())) or b""
                    fh.close()
                    decoded, said = plain_paste(decoded)
                    told = "; ".join(x for x in ("HTML entities (text copied from a rendered page) decoded", said) if x)
                    return io.BytesIO(decoded), st, told
                if st.st_size <= HTML_PASTE_BYTES:
                    head = fh.read(_HTML_HEAD)
                    fh.seek(0)
                    form = _paste_form(head)
                    if form is not None:
                        plain = _converted("paste", st, lambda: plain_paste(fh.read())[0]) or b""
                        fh.close()
                        return io.BytesIO(plain), st, _margin_said(form[0])
                    if _carriage_returns_only(head):
                        whole = fh.read()
                        if b"\n" not in whole:  # (decided on the whole file: a line feed anywhere, and it is no such file)
                            fh.close()
                            return (io.BytesIO(whole.replace(b"\r", b"\n")), st,
                                    "lines ended by carriage returns alone (classic Mac), read as lines")
                        fh.seek(0)
                return fh, st, None
            data = fh.read(MAX_INFLATED)
            note = (f"only its first {MAX_INFLATED >> 20} MiB read ({_WIDE_NAME.get(wide or '', 'its encoding')} is converted in memory)"
                    if st.st_size > MAX_INFLATED else None)
        else:
            data, note = inflate(fh)
            wide = wide_encoding(data[:WIDE_HEAD])
            legacy = None if wide is not None else legacy_encoding(data[:LEGACY_HEAD])
    except BaseException:
        fh.close()
        raise
    finally:
        if compressed or wide is not None or legacy is not None:
            fh.close()
    if legacy is not None:
        data = _from_legacy(data, legacy)
        note = "; ".join(x for x in (f"{_LEGACY_NAME[legacy]} text, converted to UTF-8", note) if x)
        if len(data) <= HTML_PASTE_BYTES and b"&" in data and sum(data[:_HTML_HEAD].count(e) for e in _ENTITIES) >= 3:
            data = _unescape(data)  # (a page's text saved in a code page: its entities too)
            note += "; HTML entities (text copied from a rendered page) decoded"
    if wide is not None:
        data = _from_wide(data, wide)
        said = ("UTF-16 text (a Windows PowerShell redirect?), converted to UTF-8" if wide == "utf-16"
                else f"{_WIDE_NAME[wide]} text without a byte-order mark, converted to UTF-8" if wide.endswith(("-le", "-be"))
                else f"{_WIDE_NAME[wide]} text, converted to UTF-8")
        note = "; ".join(x for x in (said, note) if x)
    if len(data) <= HTML_PASTE_BYTES:  # (a converted or inflated text is read whole: its paste's form too)
        data, said = plain_paste(data)
        note = "; ".join(x for x in (note, said) if x) or None
    return io.BytesIO(data), st, note


def _carriage_returns_only(head: bytes) -> bool:
    """A text whose lines end in a carriage return alone (classic Mac OS, an old editor's or
    converter's copy): no line feed in ``head``, several carriage returns, and most of what they
    separate no progress bar's redraw (a file of nothing but one bar's updates is one line)."""
    if b"\n" in head or head.count(b"\r") < 3:
        return False
    pieces = [p for p in head.decode("utf-8", "replace").split("\r") if p.strip()]
    return len(pieces) >= 3 and sum(1 for p in pieces if _BAR.search(p)) < len(pieces) / 2


# a bar's redraw: tqdm's percentage and bar or its elapsed-and-left times, Keras's "12/1875 [==>...]"
# (a rate alone, "1.42s/it", is in ordinary step lines too)
_BAR = re.compile(r"\d%\||\[\d{1,3}:\d\d<|\d+/\d+ \[[=>.]*\]")


HTML_PASTE_BYTES = 8 << 20  # a copy of a rendered page is a paste, not a large log
_ENTITIES = (b"&quot;", b"&lt;", b"&gt;", b"&#39;", b"&#x27;", b"&amp;")
_HTML_HEAD = 32 << 10


def _html_escaped(fh: BinaryIO) -> bool:
    """The text's first 32 KiB hold three or more HTML entities of the characters a page escapes
    (quotes, angle brackets, ampersands): a log copied from a rendered page (an issue's HTML, a
    forum post), whose ``File &quot;train.py&quot;`` no rule would read. Leaves ``fh`` at 0."""
    head = fh.read(_HTML_HEAD)
    fh.seek(0)
    return b"&" in head and sum(head.count(e) for e in _ENTITIES) >= 3


def _unescape(data: bytes) -> bytes:
    """``data`` with its HTML entities decoded, line by line (a line's count of line breaks is kept:
    an entity of a line break would move every later line's number)."""
    text = data.decode("utf-8", "surrogateescape")
    lines = [html.unescape(line).replace("\n", " ") if "&" in line else line for line in text.split("\n")]
    return "\n".join(lines).encode("utf-8", "surrogateescape")


_MARGIN_NAMES = {b">": "reply's '>'", b"\t": "tab"}
_MARGIN_LINES = 5  # a margin counts on this many lines of text or more


def _margin(head: bytes) -> bytes | None:
    """The margin every non-blank line of ``head`` (a file's first bytes, its last line perhaps
    cut) begins with: a reply's quote (``"> "`` or ``">"``) or an indent of two or more spaces or
    tabs (a code block indented in Markdown, a forum's or a mail's copy); None where a line
    begins without it or fewer than :data:`_MARGIN_LINES` lines have text."""
    if not head or head[:1] not in b" \t>\n\r":
        return None
    lines = [x.rstrip(b"\r") for x in head.split(b"\n")[:-1] or [head]]
    text = [x for x in lines if x.strip()]
    if len(text) < _MARGIN_LINES:
        return None
    if all(x.startswith(b">") for x in text):
        return b">"  # (taken off line by line: _unmargined)
    leads = [x[: len(x) - len(x.lstrip(b" \t"))] for x in text]
    common = bytes(os.path.commonprefix(leads) or b"")  # noqa: RUF071 (byte by byte, as meant)
    if common.endswith(b"  ") and any(x[len(common):].startswith(b'File "') for x in text):
        common = common[:-2]  # a traceback's frames: their own indent is no margin (a paste cut inside one)
    if not common or (len(common) < 2 and common != b"\t"):
        return None
    return common


def _paste_form(head: bytes) -> tuple[bytes | None, bool, bool] | None:
    """What a paste's first bytes show of its form: (the margin every line begins with, CR LF
    line ends, terminal codes), or None when it has none of them."""
    crlf = _crlf(head)
    ansi = b"\x1b[" in head
    if ansi:
        head = _ANSI_CSI.sub(b"", head)
    margin = _margin(head.replace(b"\r\n", b"\n") if crlf else head)
    return (margin, crlf, ansi) if margin or crlf or ansi else None


def plain_paste(data: bytes) -> tuple[bytes, str | None]:
    """``data`` (a paste read whole, up to :data:`HTML_PASTE_BYTES`) as plain log lines, its form
    as its first 32 KiB show it taken off (terminal codes anywhere), and a note of a margin
    removed (None where none was)."""
    form = _paste_form(data[:_HTML_HEAD])
    if b"\x1b[" in data and (form is None or not form[2]):
        form = (form[0], form[1], True) if form is not None else (None, False, True)  # codes only further on
    if form is None:
        return data, None
    margin, crlf, ansi = form
    return _plain_paste(data, margin, crlf, ansi), _margin_said(margin)


def _margin_said(margin: bytes | None) -> str | None:
    return (f"the {_MARGIN_NAMES.get(margin, 'indent')} every line begins with removed (a quoted or indented paste)"
            if margin else None)


def _crlf(head: bytes) -> bool:
    """Most of ``head``'s lines end in CR LF (a paste saved on Windows, a log copied from a
    browser there): rules read a line without its CR."""
    return b"\r\n" in head and head.count(b"\r\n") * 2 >= head.count(b"\n")


# a terminal's colour and style codes (SGR) and cursor moves, as a console captured with colours
# holds them: no rule reads them, and one before a line's first word hides it from the rules
# anchored there
_ANSI_CSI = re.compile(rb"\x1b\[[0-9;:?]{0,40}[A-Za-z]|\x1b\][0-9]{1,4};[^\x07\x1b\n]{0,2000}(?:\x07|\x1b\\)")


def without_terminal_codes(data: bytes) -> bytes:
    """``data`` without its terminal colour codes and cursor moves (:data:`_ANSI_CSI`), each line
    kept (none spans a line end): what replay reads of a console captured with colours."""
    return _ANSI_CSI.sub(b"", data) if b"\x1b" in data else data


def _plain_paste(data: bytes, margin: bytes | None, crlf: bool, ansi: bool = False) -> bytes:
    """``data`` as plain lines: its colour codes, its CRs before line feeds and its margin taken
    off (each line's count and order kept)."""
    if ansi:
        data = _ANSI_CSI.sub(b"", data)
    if crlf:
        data = data.replace(b"\r\n", b"\n")
    return _unmargined(data, margin) if margin else data


def _unmargined(data: bytes, margin: bytes) -> bytes:
    """``data`` with ``margin`` taken from the start of every line that begins with it; a quote's
    margin (``">"``, ``"> "``) is one ``">"`` and the space after it where there is one, line by
    line (a nested ``">> "`` keeps one level); the count of lines is kept."""
    lines = data.split(b"\n")
    if margin == b">":
        return b"\n".join(x[2:] if x.startswith(b"> ") else x[1:] if x.startswith(b">") else x for x in lines)
    cut = len(margin)
    return b"\n".join(x[cut:] if x.startswith(margin) else x for x in lines)


# a file's text converted (an export's records, a page's decoded entities), by what was done and the
# file's identity: listing a run, reading its head and tail, scanning it and reading its tail again
# each open it, and each would otherwise convert the whole file anew
_CONVERTED: dict[tuple[str, int, int, int, int], bytes | None] = {}
_CONVERTED_KEPT = 4
_EXPORT_CACHED_BYTES = 64 << 20


def _converted(what: str, st: os.stat_result, convert: Callable[[], bytes | None], *, keep: bool = True) -> bytes | None:
    """``convert()``'s result for this file, made once per file identity (up to
    :data:`_CONVERTED_KEPT` kept; ``keep`` false: made at each open, not held)."""
    key = (what, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if key in _CONVERTED:
        return _CONVERTED[key]
    out = convert()
    if keep:
        if len(_CONVERTED) >= _CONVERTED_KEPT:
            _CONVERTED.pop(next(iter(_CONVERTED)))
        _CONVERTED[key] = out
    return out


def asciinema_output(data: bytes) -> bytes | None:
    """What an asciinema recording (a ``.cast`` file) showed on the terminal, as text: its output
    events in order (format 2 and 3: a JSON header line, then ``[time, "o", "text"]`` a line;
    format 1: one JSON document with ``"stdout": [[delay, "text"], ...]``). None when ``data`` is
    no recording."""
    text = data.decode("utf-8", "replace")
    out: list[str] = []
    first, _, rest = text.partition("\n")
    try:
        header = json.loads(first)
    except (ValueError, RecursionError):
        header = None
    if isinstance(header, dict) and header.get("version") in (2, 3):
        for line in rest.splitlines():
            try:
                event = json.loads(line)
            except (ValueError, RecursionError):
                continue  # (a line cut at the end of what was read)
            if isinstance(event, list) and len(event) >= 3 and event[1] == "o" and isinstance(event[2], str):
                out.append(event[2])
    else:
        try:
            doc = json.loads(text)
        except (ValueError, RecursionError):
            return None
        frames = doc.get("stdout") if isinstance(doc, dict) and doc.get("version") == 1 else None
        if not isinstance(frames, list):
            return None
        out = [f[1] for f in frames if isinstance(f, list) and len(f) >= 2 and isinstance(f[1], str)]
    return "".join(out).encode("utf-8") if out else None


def notebook_outputs(data: bytes) -> bytes | None:
    """What a Jupyter notebook's cells printed, in order, as text: their streams (stdout and
    stderr: a training loop's lines, ``!torchrun``'s output), their results' plain text and their
    errors' tracebacks (terminal colours taken out). None when ``data`` is no notebook or its
    cells printed nothing."""
    try:
        doc = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    cells = doc.get("cells") if isinstance(doc, dict) else None
    if not isinstance(cells, list):
        return None
    out: list[str] = []
    for cell in cells:
        outputs = cell.get("outputs") if isinstance(cell, dict) else None
        for o in outputs if isinstance(outputs, list) else ():
            if not isinstance(o, dict):
                continue
            kind = o.get("output_type")
            if kind == "stream":
                text = o.get("text")
            elif kind == "error":
                text = o.get("traceback") or [f"{o.get('ename', 'Error')}: {o.get('evalue', '')}"]
                text = [strip_ansi(str(t)) + "\n" for t in text] if isinstance(text, list) else text
            elif kind in ("execute_result", "display_data"):
                data_ = o.get("data")
                text = data_.get("text/plain") if isinstance(data_, dict) else None
            else:
                continue
            if isinstance(text, list):
                text = "".join(str(t) for t in text)
            if isinstance(text, str) and text:
                out.append(text if text.endswith("\n") else text + "\n")
    return "".join(out).encode("utf-8") if out else None


def _export_lines(fh: BinaryIO, st: os.stat_result, kind: str) -> bytes | None:
    return _converted("export", st, lambda: export_records(fh.read(MAX_INFLATED), kind),
                      keep=st.st_size <= _EXPORT_CACHED_BYTES)


def _export_kind(path: Path, fh: BinaryIO) -> str | None:
    """"json", "jsonl", "csv" or "yaml" for a file that may be a log platform's export (:mod:`detector.support.exports`):
    a JSON document that is not JSON lines, a CSV file whose header names a message column."""
    suffix = path.suffix.lower()
    if suffix not in (".json", ".csv", ".yaml", ".yml", ".jsonl", ".ndjson"):
        return None
    head = fh.read(65536)
    fh.seek(0)
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl" if looks_like_jsonl_export(head) else None
    if suffix == ".csv":
        return "csv" if looks_like_csv_export(head) else None
    if suffix in (".yaml", ".yml"):
        return "yaml" if looks_like_yaml_export(head) else None
    stripped = head.lstrip()
    if stripped[:1] not in (b"[", b"{"):
        return None
    first, _, rest = stripped.partition(b"\n")
    if not rest.strip():
        return "json"  # one line: a whole document (or a single record) written without indentation
    try:
        json.loads(first.strip())
    except (ValueError, RecursionError):
        return "json"
    # a whole record on its first line: JSON lines, read line by line unless an export's
    return "jsonl" if looks_like_jsonl_export(head) else None


def stream_size(fh: BinaryIO) -> int:
    """The size of an open log stream (a file, or an inflated log in memory)."""
    try:
        return os.fstat(fh.fileno()).st_size
    except (OSError, ValueError):  # (io.UnsupportedOperation: no file descriptor)
        here = fh.tell()
        size = fh.seek(0, os.SEEK_END)
        fh.seek(here)
        return size
