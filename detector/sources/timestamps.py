"""Timestamps in the forms training and kernel logs use, parsed from the start of a message.

``parse_timestamp(text, year=...)`` returns a :class:`Stamp` or None. Wall-clock stamps become
aware datetimes (UTC when the line has no offset); boot-relative stamps (dmesg ``[  28.733734]``,
``/dev/kmsg`` records) keep their seconds since boot in ``since_boot`` and have ``time`` None.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone

from detector.support.hosts import names_a_host

_MONTHS = {m: i for i, m in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)}
# the abbreviated month names journalctl and syslog print under other locales (LC_TIME): Spanish,
# Portuguese, Italian, German (lower case there, "abr 27 22:39:53 host kernel: ..."); English's too
_LOCAL_MONTHS = {**_MONTHS, **{m: i for names in (
    ("ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic"),  # es
    ("jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez"),  # pt
    ("gen", "feb", "mar", "apr", "mag", "giu", "lug", "ago", "set", "ott", "nov", "dic"),  # it
    ("jan", "feb", "mär", "apr", "mai", "jun", "jul", "aug", "sep", "okt", "nov", "dez"),  # de
    ("janv", "févr", "mars", "avr", "mai", "juin", "juil", "août", "sept", "oct", "nov", "déc"),  # fr
    ("янв", "фев", "мар", "апр", "мая", "июн", "июл", "авг", "сен", "окт", "ноя", "дек"),  # ru
) for i, m in enumerate(names, 1)}}
# a month word of those: three to five letters, a dot after it in French ("févr.")
_MONTH_WORD = re.compile(r"[^\W\d_]{3,5}")


@dataclass(frozen=True, slots=True)
class Stamp:
    time: datetime | None  # aware, when the stamp is a wall-clock time
    since_boot: float | None  # seconds since boot (dmesg / kmsg)
    host: str | None = None  # host name carried by syslog / journald lines
    end: int = 0  # offset in the text just after the stamp


# what every wall-clock stamp below holds (ISO, glog, syslog, dmesg -T, ctime, vLLM's, torchelastic's):
# a line without it has no time of day, whatever its header (a stamp's reading costs fifty times
# this search: NCCL's untimed INFO lines by the thousand are passed over with it)
TIME_OF_DAY = re.compile(r"[0-9]{2}:[0-9]{2}:[0-9]{2}|__REALTIME_TIMESTAMP")  # (journalctl -o json: microseconds)
_CLOCK_HINT = re.compile(r":[0-9]{2}:")  # (what every time of day holds: found fast, by its colon)


def time_of_day(text: str) -> re.Match[str] | None:
    """``TIME_OF_DAY.search(text)``, twenty times faster on lines without one (NCCL's untimed INFO
    lines by the thousand): a search that begins with a colon first."""
    if _CLOCK_HINT.search(text) is None and "__REALTIME_TIMESTAMP" not in text:
        return None
    return TIME_OF_DAY.search(text)


# ISO-8601 / Python logging / journald short-iso: 2026-11-29T12:00:01.123+00:00, 2026-11-29 12:00:01,123
_ISO = re.compile(
    r"\[?(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})[T ](?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2})"
    r"(?:[.,](?P<frac>\d{1,9}))?(?P<tz> ?(?:Z|[+-]\d{2}:?\d{2}))?\]?"
    r"(?:\s+(?P<host>[A-Za-z0-9][\w.-]*)\s+kernel:)?"
)
# glog / torch: E1130 17:40:34.227531 (also inside [rank1]:[E1130 ...]); torch's own c10 logger
# prints the month unpadded (month * 100 + day): [E726 10:59:44.365679787 ProcessGroupNCCL.cpp:621]
_GLOG = re.compile(
    r"\[?(?P<lvl>[IWEF])(?P<mo>1[0-2]|0?[1-9])(?P<d>\d{2}) (?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2})(?:\.(?P<frac>\d{1,9}))?"
)
# dmesg: [  28.733734] (optionally followed by [ T1946])
EPOCH_SECONDS = 1_000_000_000  # a bracketed count of seconds this large is Unix time (2001 on), not an uptime
_DMESG = re.compile(r"\[\s*(?P<sec>\d{1,10})\.(?P<us>\d{1,9})\](?:\s*\[\s*[TC]\d+\])?")
# dmesg -T: [Sun Feb 23 16:24:18 2025]
_DMESG_T = re.compile(
    r"\[(?:[A-Z][a-z]{2} )?(?P<mon>[A-Z][a-z]{2})\s+(?P<d>\d{1,2}) (?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2}) (?P<y>\d{4})\]"
)
# syslog under another locale: "abr 27 22:39:53 host kernel:" (a month of _LOCAL_MONTHS)
_SYSLOG_LOCAL = re.compile(
    r"(?P<mon>[^\W\d_]{3,5})\.?\s+(?P<d>\d{1,2}) (?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2})(?:\.(?P<frac>\d{1,9}))?"
    r"(?:\s+(?P<host>[A-Za-z0-9][\w.-]*)\s+(?:kernel:|\S+?:))?"
)
# journalctl and syslog under a Chinese or Japanese locale: "9月 20 21:34:49 dgx19 kernel: ..."
_SYSLOG_CJK = re.compile(
    r"(?P<mo>\d{1,2})月\s{1,2}(?P<d>\d{1,2}) (?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2})(?:\.(?P<frac>\d{1,9}))?"
    r"\s+(?P<host>[A-Za-z0-9][\w.-]*)\s+(?:kernel:|\S+?:)"
)
# a date written the Chinese or Japanese way (a logger's datefmt, date(1) under zh_CN):
# "2025年05月18日 22:50:22", "2025年 05月 18日 星期日 18:30:46 CST"
_DATE_CJK = re.compile(
    r"(?P<y>\d{4})年 ?(?P<mo>\d{1,2})月 ?(?P<d>\d{1,2})日(?: ?(?:星期|周)[一二三四五六日天]| ?[（(][月火水木金土日][)）])? {0,2}"
    r"(?P<h>\d{1,2}):(?P<mi>\d{2}):(?P<s>\d{2})(?:[.,](?P<frac>\d{1,9}))?"
)
# dmesg -T under another locale: "[mer. févr. 12 11:02:09 2025]", "[Вс июл  6 06:23:56 2025]"
_DMESG_T_LOCAL = re.compile(
    r"\[(?:[^\W\d_]{2,4}\.? )?(?P<mon>[^\W\d_]{3,5})\.?\s+(?P<d>\d{1,2}) (?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2}) (?P<y>\d{4})\]"
)
# syslog: Nov 29 12:00:01 host kernel:
_SYSLOG = re.compile(
    r"(?P<mon>[A-Z][a-z]{2})\s+(?P<d>\d{1,2}) (?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2})(?:\.(?P<frac>\d{1,9}))?"
    r"(?:\s+(?P<host>[A-Za-z0-9][\w.-]*)\s+(?:kernel:|\S+?:))?"
)
# ctime, as Open MPI's mpirun --timestamp-output puts it before each line: Fri Oct 23 17:16:00 2020
_CTIME = re.compile(
    r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?P<mon>[A-Z][a-z]{2}) {1,2}(?P<d>\d{1,2}) (?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2}) (?P<y>\d{4})"
)
# /dev/kmsg record: PRIORITY,SEQUENCE,TIMESTAMP_US,FLAGS;MESSAGE
_KMSG = re.compile(r"(?P<pri>\d{1,3}),(?P<seq>\d{1,20}),(?P<us>\d{1,16}),[^;]*;")
# torchelastic summary time: 2026-06-08_19:04:45
_ELASTIC = re.compile(r"(?P<y>\d{4})-(?P<mo>\d{2})-(?P<d>\d{2})_(?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2})")
# dates with slashes: MMEngine's logger (and Go's log package), "2024/01/24 02:46:39 - mmengine - INFO - ...";
# Hugging Face's example scripts (datefmt "%m/%d/%Y %H:%M:%S"), "07/14/2024 15:49:32 - INFO - __main__ - ...";
# a logger of one's own may write the day first ("%d/%m/%Y"): a date whose first two numbers are
# both 12 or less is read only where the file's other dates show the order (``day_first``)
_SLASHED = re.compile(r"(?:(?P<y>\d{4})/(?P<mo>\d{2})/(?P<d>\d{2})|(?P<a>\d{2})/(?P<b>\d{2})/(?P<y2>\d{4}))"
                      r"[ T](?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2})(?:[.,](?P<frac>\d{1,9}))?")


_SLASHED_IN = re.compile(r"(?:^|[\s\]:|])([0-3][0-9])/([0-3][0-9])/(?:19|20)[0-9]{2}[ T][0-9]{2}:[0-9]{2}")


def slashed_at(text: str) -> bool:
    """Whether ``text`` begins (after spaces) with a date written with slashes and its time."""
    return _SLASHED.match(text.lstrip(" ")) is not None


def slashed_order(lines: list[str]) -> bool | None:
    """Whether the dates with slashes in ``lines`` (a file's first lines) write the day first
    (True: one's first number is past 12), the month first (False: one's second is), or None
    (no such date, or none says)."""
    for line in lines:
        for m in _SLASHED_IN.finditer(line, 0, 200):
            a, b = int(m[1]), int(m[2])
            if a > 12 >= b:
                return True
            if b > 12 >= a:
                return False
    return None


def _frac(value: str | None) -> int:
    if not value:
        return 0
    return int((value + "000000")[:6])


_TZ_SEEN: dict[str | None, timezone | None] = {}


def _tz_of(value: str | None) -> timezone | None:
    """:func:`_tz`, remembered (a log repeats its offset on every line)."""
    try:
        return _TZ_SEEN[value]
    except KeyError:
        zone = _tz(value)
        if len(_TZ_SEEN) < 256:
            _TZ_SEEN[value] = zone
        return zone


def _tz(value: str | None) -> timezone | None:
    """The zone of an offset; None for one no clock has (``+99:00``, ``-2400``)."""
    value = value.strip() if value else value
    if not value or value == "Z":
        return UTC
    sign = -1 if value[0] == "-" else 1
    digits = value[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:4])
    if hours > 23 or minutes > 59:
        return None
    return timezone(sign * timedelta(hours=hours, minutes=minutes))


# Years a log line's clock can plausibly show: anything else is not a time (and ``9999-12-31``
# would overflow the arithmetic on times further down the pipeline).
MIN_YEAR = 1970
MAX_YEAR = 2999


def _safe(year: int, month: int, day: int, h: int, mi: int, s: int, us: int, tz: timezone | None) -> datetime | None:
    if tz is None or not MIN_YEAR <= year <= MAX_YEAR:
        return None
    try:
        return datetime(year, month, day, h, mi, min(s, 59), us, tzinfo=tz)
    except ValueError:
        return None


# Line headers that name the host a line comes from (kept in the message: rules match them too)
_HOSTNAME = r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}"
# NCCL: "host:pid:tid [cudaDev] ..." (a service thread prints an unset cudaDev: "[32626]")
_NCCL_HEADER = re.compile(r"(?P<host>" + _HOSTNAME + r"):(?P<pid>\d{1,10}):\d{1,10} \[\d{1,10}\]")
# UCX "[host:pid:0:tid]" / "[host:pid :0:tid]" (pid padded) / "[host:pid:0]", Open MPI's "[host:pid] "
_BRACKET_HEADER = re.compile(r"\[(?P<host>" + _HOSTNAME + r"):(?P<pid>\d{1,10}) {0,8}(?::\d{1,10}){0,2}\][ :]")
# talosctl dmesg / log collectors: "host: kern: warning: [2026-04-22T21:25:20.458998481Z]: msg"
_FACILITY_HEADER = re.compile(
    r"(?P<host>" + _HOSTNAME + r"): (?:kern|user|daemon|auth|authpriv|syslog|local[0-7]): {1,8}"
    r"(?:emerg|alert|crit|err|warning|warn|notice|info|debug): {1,8}"
)
# dmesg --decode (-x): the facility and level before each line, padded, no host: "kern  :err   : [Tue Mar  5
# 06:43:44 2024] Out of memory: ...", "kern  :info  : [  28.733734] ..."
_DECODE_HEADER = re.compile(r"(?:kern|user|mail|daemon|auth|syslog|lpr|news|uucp|cron|authpriv|ftp|local[0-7]) {0,8}:"
                            r"(?:emerg|alert|crit|err|warn|notice|info|debug) {0,8}: ")
# what may sit between a stamp and a header: ": ", a second (collector's vs program's) stamp
_BETWEEN = re.compile(r"[:,]? {0,4}(?:\[\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?\] {0,4})?")
_SOURCE_FILE = re.compile(r"\.(?:py|pyx|c|cc|cpp|cxx|cu|cuh|h|hpp|rs|go|java|js|ts|sh|so)$", re.I)  # "[train.py:45]"


# a stamp's end -> (what may sit between, spaces) a header: one match for _BETWEEN and
# _header_host's two (the NCCL header tried first, as there)
_AFTER_STAMP = re.compile(
    "(?>" + _BETWEEN.pattern + ") *(?:"
    + _NCCL_HEADER.pattern.replace("(?P<host>", "(?P<nccl>").replace("(?P<pid>", "(?:")
    + "|" + _BRACKET_HEADER.pattern.replace("(?P<host>", "(?P<bracket>").replace("(?P<pid>", "(?:") + ")"
)


_NCCL_HEADER_IN = re.compile(r"(?:^|(?<=[\s\]:]))" + _NCCL_HEADER.pattern)


def nccl_header(text: str) -> tuple[str, int] | None:
    """The host and pid of an NCCL header (``host:pid:tid [dev]``) near a line's start (after a
    stamp or a prefix), or None."""
    m = _NCCL_HEADER_IN.search(text, 0, 160)
    if m is None or not _host_ok(m["host"]):
        return None
    return m["host"], int(m["pid"])


def _host_ok(host: str) -> bool:
    return names_a_host(host) and any(c.isalpha() for c in host) and not _SOURCE_FILE.search(host)


def _header_host(text: str, pos: int) -> tuple[str, int] | None:
    """The host named by a line header at ``text[pos:]`` (NCCL, UCX, Open MPI), and its end."""
    while pos < len(text) and text[pos] == " ":
        pos += 1
    m = _NCCL_HEADER.match(text, pos) or _BRACKET_HEADER.match(text, pos)
    if m is None:
        return None
    host = m["host"]
    if not _host_ok(host):
        return None
    return host, m.end()


def _with_header(stamp: Stamp | None, text: str, pos: int) -> Stamp | None:
    """``stamp`` completed by the host of a header that follows it (or that begins the text)."""
    if stamp is not None:
        if stamp.host:
            return stamp
        m = _AFTER_STAMP.match(text, stamp.end)
        if m is None:
            return stamp
        host = m["nccl"] or m["bracket"]
        if not _host_ok(host):
            return stamp
        return Stamp(stamp.time, stamp.since_boot, host, stamp.end)
    found = _header_host(text, pos)
    if found is None:
        return None
    return Stamp(None, None, found[0], found[1])


_NEMO_LEVELS = frozenset({"D ", "I ", "W ", "E ", "C "})
# vLLM's logger (and SGLang's and others' after it): the level, then the month and day without a year,
# "INFO 04-19 19:12:13 [loggers.py:123] ...", "ERROR 03-24 03:58:04 serving_chat.py:222] ..."
_LEVEL_MONTH_DAY = re.compile(r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) (?P<mo>[01][0-9])-(?P<d>[0-3][0-9]) "
                              r"(?P<h>[0-2][0-9]):(?P<mi>[0-5][0-9]):(?P<s>[0-5][0-9])(?:\.(?P<frac>[0-9]{1,6}))? ")
_LEVEL_HEADER = re.compile(r"\[(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL)\|(?:[\w.-]{1,80}:\d{1,6}\] )?")


def parse_timestamp(text: str, *, year: int | None = None, pos: int = 0, day_first: bool | None = None) -> Stamp | None:
    """Parse a timestamp at ``text[pos:]`` (leading spaces allowed). ``year`` completes stamps
    without a year (glog, syslog); without it those give None. ``day_first``: how a file writes
    dates with slashes whose first two numbers are both 12 or less (None: not known, no time).

    The host a line header names is returned with it (``host``): syslog and journald hosts, and
    the NCCL (``host:pid:tid [dev]``), UCX (``[host:pid:0:tid]``), Open MPI (``[host:pid]``) and
    talosctl (``host: kern: warning: [time]:``) headers, before or after the stamp. A header
    without a stamp gives a Stamp with ``time`` and ``since_boot`` None."""
    while pos < len(text) and text[pos] == " ":
        pos += 1
    if pos >= len(text):
        return None
    # (a facility header has ": " within its first 66 characters)
    m = _FACILITY_HEADER.match(text, pos) if text.find(": ", pos, pos + 66) >= 0 else None
    if m is not None:
        inner = _parse_time(text, year=year, pos=m.end(), day_first=day_first)
        host = m["host"] if names_a_host(m["host"]) else None
        if inner is not None:
            return Stamp(inner.time, inner.since_boot, host, inner.end)
        return Stamp(None, None, host, m.end()) if host else None
    if text[pos] in "kumdaslnucf" and (decoded := _DECODE_HEADER.match(text, pos)) is not None:
        inner = _parse_time(text, year=year, pos=decoded.end(), day_first=day_first)
        if inner is not None:
            return inner
    if text[pos] in "DIWEC" and (vllm := _LEVEL_MONTH_DAY.match(text, pos)) is not None:
        if year is None:
            return None
        t = _safe(year, int(vllm["mo"]), int(vllm["d"]), int(vllm["h"]), int(vllm["mi"]), int(vllm["s"]),
                  _frac(vllm["frac"]), UTC)
        return Stamp(t, None, None, vllm.end()) if t else None
    if text.startswith("[NeMo ", pos) and text[pos + 6:pos + 8] in _NEMO_LEVELS:
        # NeMo's logger: "[NeMo I 2024-04-11 16:13:04 megatron_init:263] ...", the stamp after the level
        inner = _parse_time(text, year=year, pos=pos + 8, day_first=day_first)
        if inner is not None:
            return inner
    if text.startswith("[", pos) and (level := _LEVEL_HEADER.match(text, pos)) is not None:
        # Hugging Face's "[INFO|trainer.py:2128] 2025-11-03 19:43:47,996 >> ..." and
        # LLaMA-Factory's "[INFO|2025-11-03 19:43:47] module:12 >> ...": the stamp follows the level
        inner = _parse_time(text, year=year, pos=level.end(), day_first=day_first)
        if inner is not None:
            return inner
    stamp = _with_header(_parse_time(text, year=year, pos=pos, day_first=day_first), text, pos)
    if (stamp is not None and stamp.time is not None and stamp.host is None
            and text[stamp.end + 1:stamp.end + 2] in _INNER_STARTS and text.startswith(" ", stamp.end)
            and (inner := _parse_time(text, year=year, pos=stamp.end + 1, day_first=day_first)) is not None
            and inner.time is not None and inner.host is not None
            and not timedelta(0) <= stamp.time - inner.time < timedelta(seconds=1)):
        # a collector's stamp (a CI runner's, kubectl's --timestamps) before a system log line
        # with its own stamp and host (journald, syslog): the inner one is when it happened; the
        # outer one is when the log was read, hours later for a kernel log dumped at the end (a
        # line read as it came, within the second, keeps the collector's finer stamp)
        return inner
    if stamp is None and text.startswith("[", pos) and (tag := _TAG_HEADER.match(text, pos)) is not None:
        # a logger's own tag before its stamp: torchtitan's "[titan] 2025-02-08 10:20:57,792 - root
        # - INFO - ...", "[ERROR] 2022-08-21 20:11:07,312 api: ..."
        inner = _parse_time(text, year=year, pos=tag.end(), day_first=day_first)
        if inner is not None and inner.time is not None:
            return inner
    return stamp


_TAG_HEADER = re.compile(r"\[[A-Za-z][\w.-]{0,23}\] ")
# what a system log line's own stamp behind a collector's begins with (an ISO date, a syslog month)
_INNER_STARTS = frozenset("0123456789JFMASOND")


def _parse_time(text: str, *, year: int | None, pos: int, day_first: bool | None = None) -> Stamp | None:
    if pos >= len(text):
        return None
    first = text[pos]
    if first.isdigit():
        m = _ISO.match(text, pos)
        if m:
            y, mo, d, h, mi, sec, frac, tz, host = m.groups()
            t = _safe(int(y), int(mo), int(d), int(h), int(mi), int(sec),
                      int((frac + "000000")[:6]) if frac else 0, _tz_of(tz))
            return Stamp(t, None, host, m.end()) if t else None
        m = _KMSG.match(text, pos)
        if m:
            return Stamp(None, int(m["us"]) / 1e6, None, m.end())
        m = _ELASTIC.match(text, pos)
        if m:
            t = _safe(int(m["y"]), int(m["mo"]), int(m["d"]), int(m["h"]), int(m["mi"]), int(m["s"]), 0, UTC)
            return Stamp(t, None, None, m.end()) if t else None
        if "月" in text[pos + 1:pos + 10]:
            m = _DATE_CJK.match(text, pos)
            if m:
                t = _safe(int(m["y"]), int(m["mo"]), int(m["d"]), int(m["h"]), int(m["mi"]), int(m["s"]), _frac(m["frac"]), UTC)
                return Stamp(t, None, None, m.end()) if t else None
            m = _SYSLOG_CJK.match(text, pos)
            if m and year is not None:
                t = _safe(year, int(m["mo"]), int(m["d"]), int(m["h"]), int(m["mi"]), int(m["s"]), _frac(m["frac"]), UTC)
                return Stamp(t, None, m["host"], m.end()) if t else None
            return None
        m = _SLASHED.match(text, pos)
        if m:
            if m["y"]:
                y, mo, d = int(m["y"]), int(m["mo"]), int(m["d"])
            else:
                a, b = int(m["a"]), int(m["b"])
                first_is_day = a > 12 if a > 12 or b > 12 else day_first
                if first_is_day is None:
                    return None  # (5 March or 3 May: the file does not say)
                y, mo, d = int(m["y2"]), *((b, a) if first_is_day else (a, b))
            t = _safe(y, mo, d, int(m["h"]), int(m["mi"]), int(m["s"]), _frac(m["frac"]), UTC)
            return Stamp(t, None, None, m.end()) if t else None
        return None
    if first == "[":
        m = _DMESG.match(text, pos)
        if m:
            sec = int(m["sec"])
            if sec >= EPOCH_SECONDS:
                # UCX's "[1749803291.555759]": Unix time, not seconds since boot; left untimed (the
                # same run's other stamps are most often local time without a zone, and a true
                # UTC time among them would be ordered hours away from its neighbours); the host of
                # the UCX header after it still names the line's node
                found = _header_host(text, m.end())
                return Stamp(None, None, found[0], found[1]) if found else None
            return Stamp(None, sec + _frac(m["us"]) / 1e6, None, m.end())
        for dmesg_t, months in ((_DMESG_T, _MONTHS), (_DMESG_T_LOCAL, _LOCAL_MONTHS)):
            m = dmesg_t.match(text, pos)
            if m:
                month = months.get(m["mon"].lower())
                if month:
                    t = _safe(int(m["y"]), month, int(m["d"]), int(m["h"]), int(m["mi"]), int(m["s"]), 0, UTC)
                    return Stamp(t, None, None, m.end()) if t else None
                return None
        m = _ISO.match(text, pos)
        if m:
            t = _safe(int(m["y"]), int(m["mo"]), int(m["d"]), int(m["h"]), int(m["mi"]), int(m["s"]),
                      _frac(m["frac"]), _tz(m["tz"]))
            return Stamp(t, None, None, m.end()) if t else None
    if first in "[IWEF":
        m = _GLOG.match(text, pos)
        if m and year is not None:
            t = _safe(year, int(m["mo"]), int(m["d"]), int(m["h"]), int(m["mi"]), int(m["s"]), _frac(m["frac"]), UTC)
            return Stamp(t, None, None, m.end()) if t else None
        if m:
            return None
    if first.isupper():
        if text[pos + 3:pos + 4] == " " and (m := _CTIME.match(text, pos)) is not None:
            month = _MONTHS.get(m["mon"].lower())
            t = _safe(int(m["y"]), month, int(m["d"]), int(m["h"]), int(m["mi"]), int(m["s"]), 0, UTC) if month else None
            return Stamp(t, None, None, m.end()) if t else None
        m = _SYSLOG.match(text, pos)
        if m:
            month = _MONTHS.get(m["mon"].lower())
            if month and year is not None:
                t = _safe(year, month, int(m["d"]), int(m["h"]), int(m["mi"]), int(m["s"]), _frac(m["frac"]), UTC)
                return Stamp(t, None, m["host"], m.end()) if t else None
    if ((first.islower() or text[pos:pos + 3].lower() not in _MONTHS) and (word := _MONTH_WORD.match(text, pos)) is not None
            and (word[0].lower() in _LOCAL_MONTHS or word[0][:3].lower() in _LOCAL_MONTHS)):
        m = _SYSLOG_LOCAL.match(text, pos)
        if m and m["host"] is not None:  # (a month word and a time alone may be any sentence's)
            month = _LOCAL_MONTHS.get(m["mon"].lower()) or _LOCAL_MONTHS.get(m["mon"][:3].lower())
            if month and year is not None:
                t = _safe(year, month, int(m["d"]), int(m["h"]), int(m["mi"]), int(m["s"]), _frac(m["frac"]), UTC)
                return Stamp(t, None, m["host"], m.end()) if t else None
    return None


# date(1)'s own output, a line of its own (a batch script's "+ date" at its start):
# "Tue Jul  8 05:17:21 UTC 2025"
_DATE_OUTPUT = re.compile(
    r" {0,4}(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?P<mon>[A-Z][a-z]{2}) {1,2}(?P<d>\d{1,2}) (?P<h>\d{2}):(?P<mi>\d{2}):(?P<s>\d{2})"
    r" [A-Z]{2,5} (?P<y>\d{4}) {0,4}"
)


def date_output(text: str) -> datetime | None:
    """The time a line of date(1)'s output names, read as local time as the run's other
    unzoned stamps are (the zone's name is not trusted: a container's may differ from the
    program's). Not a stamp of the lines after it: only a file's start (see
    pipeline.scan.scan_file)."""
    m = _DATE_OUTPUT.fullmatch(text)
    if m is None:
        return None
    month = _MONTHS.get(m["mon"].lower())
    return _safe(int(m["y"]), month, int(m["d"]), int(m["h"]), int(m["mi"]), int(m["s"]), 0, UTC) if month else None


# (led by its literal "20", a fast search: what comes before it is checked after, as \b would)
_ISO_YEAR = re.compile(r"(20\d{2})-\d{2}-\d{2}[T _]\d{2}:\d{2}")
# (a date with slashes and its time: MMEngine's "2024/01/24 02:46:39", Hugging Face's "07/14/2024 15:49:32")
_SLASHED_YEAR = re.compile(r"(?:(20\d{2})/[01]\d/[0-3]\d|[0-3]\d/[0-3]\d/(20\d{2})) \d{2}:\d{2}:\d{2}")
# C's ctime (nvidia-smi's header, date(1), dmesg -T): "Sun Dec 29 17:58:42 2024"
_CTIME_YEAR = re.compile(r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
                         r" [ 0-3]?\d \d{2}:\d{2}:\d{2}(?: [A-Z]{3,4})? (20\d{2})\b")
# a kernel's build date in "uname -a" or a boot banner ("#101-Ubuntu SMP Tue Nov 14 13:30:08 UTC
# 2023"), the NVIDIA driver's as it loads ("Kernel Module  535.161.08  Sun Jun 16 19:53:43 UTC
# 2024"): not when the log was written
_BUILD_DATE = re.compile(r"(?:\bSMP|\bPREEMPT(?:_DYNAMIC)?|#\d{1,6}(?:-[\w.]{1,40})?|Kernel Module {1,4}\d{2,4}\.\d{1,4}(?:\.\d{1,4})?"
                         r"|Driver for UNIX platforms {1,4}\d{2,4}\.\d{1,4}(?:\.\d{1,4})?) {1,4}$")


def find_year(text: str) -> int | None:
    """The year of the first full date in ``text`` (to complete glog and syslog stamps): an ISO
    date with its time; else a date with slashes and its time (MMEngine's, Hugging Face's); else
    C's ``ctime`` form, not a kernel's build date."""
    for m in _ISO_YEAR.finditer(text):
        before = text[m.start() - 1] if m.start() else " "
        if not (before.isalnum() or before == "_"):
            return int(m.group(1))
    if _CLOCK_HINT.search(text) is None:
        return None  # (no time of day: no ctime date either)
    for m in _SLASHED_YEAR.finditer(text):
        before = text[m.start() - 1] if m.start() else " "
        if not (before.isalnum() or before in "_/"):
            return int(m.group(1) or m.group(2))
    for c in _CTIME_YEAR.finditer(text):
        start = text.rfind("\n", 0, c.start()) + 1
        if not _BUILD_DATE.search(text, start, c.start()):
            return int(c.group(1))
    return None
