"""Host names a paste redacted or never filled in (``xxxxxxxx``, ``<hostname>``, ``host``, the
kernel's ``(none)``): no node of the run, so never a node to name or drain."""

from __future__ import annotations

import functools
import itertools
import re

_PLACEHOLDERS = frozenset({
    "host", "hostname", "host-name", "host_name", "node", "nodename", "node-name", "node_name",
    "your-host", "yourhost", "your_host", "myhost", "redacted", "removed", "hidden", "masked",
    "(none)", "none", "unknown", "n/a", "-",
    # words a bracketed "[Word:N]" header puts where a host goes: Gaudi's "[Rank:39]", a process's
    "rank", "process", "proc", "pid", "tid", "thread", "task", "device",
    # a test runner's or a logger's word where a syslog header puts its host ("Nov 26 23:08:31
    # FAIL [3.027s]: test_all_gather_multigpu", a CI log stamped like syslog)
    "fail", "failed", "error", "pass", "passed", "ok", "info", "warning", "warn", "debug", "trace",
    "critical", "fatal", "skipped", "skip",
})
_MASK = re.compile(r"[x*#?._-]{2,}", re.IGNORECASE)  # "xxx", "XXXX", "***", "x.x.x.x"
# a piece of the name that is a mask: "gpu-xxx-01", "node.***" (not "trainer-worker-xxx2q", a
# Kubernetes suffix whose random letters may hold x's)
_MASKED_PIECE = re.compile(r"(?:^|[._-])(?:x{3,}|\*{2,})(?:$|[._-])", re.IGNORECASE)


LOCAL_HOSTS = frozenset({"localhost", "localhost.localdomain", "127.0.0.1"})
# what a host name, an IPv4 or IPv6 address or a pod name can look like; anything else read from a
# log line (a leading "-", spaces, quotes, "$", "/") is no node: it would be shown in a command
# to run ("ssh <node> ..."), where a name such as "-oProxyCommand=..." is an option
_HOST_SHAPED = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:%-]{0,252}")


def host_shaped(name: str) -> bool:
    """Whether ``name`` has the shape of a host name or address (letters, digits, ``.-_:%``; not
    beginning with ``-``)."""
    return _HOST_SHAPED.fullmatch(name) is not None


def names_a_host(name: str) -> bool:
    """Whether ``name`` names a machine of the job: not the local host's own names (a single-node
    launch's "localhost", a loopback address: a peer at 127.0.0.1 is a process of the same host)
    and not a placeholder (:func:`placeholder_host`)."""
    low = name.lower()
    return low not in LOCAL_HOSTS and not low.startswith("127.") and low != "::1" and not placeholder_host(name)


@functools.lru_cache(maxsize=4096)
def placeholder_host(name: str) -> bool:
    """True for a name that stands for a host rather than naming one: all masking characters,
    a piece of it all ``x`` or ``*``, a ``<...>`` slot, or a generic word."""
    low = name.strip().lower()
    if not low or not host_shaped(name.strip()):
        return True  # (not the shape of a host name: no node either)
    if low.startswith("<") or low.endswith(">") or low.startswith("$") or low.startswith("{"):
        return True
    return low in _PLACEHOLDERS or bool(_MASK.fullmatch(low)) or bool(_MASKED_PIECE.search(low))


_IPV4 = re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}")


def is_address(name: str) -> bool:
    """The name is an IPv4 address, not a host name."""
    return _IPV4.fullmatch(name) is not None


def same_host(a: str, b: str) -> bool:
    """Two spellings of one host: equal ignoring case, or one the short name of the other (an IP
    address only equal: 10.0.0.1 and 10.0.0.2 are two hosts)."""
    a, b = a.lower(), b.lower()
    if a == b:
        return True
    if _IPV4.fullmatch(a) or _IPV4.fullmatch(b):
        return False
    return a.split(".", 1)[0] == b.split(".", 1)[0]


_EC2_NAME = re.compile(r"ip-([0-9]{1,3})-([0-9]{1,3})-([0-9]{1,3})-([0-9]{1,3})(?:\..*)?")


def host_key(host: str) -> str:
    """One host's spellings as one key, as :func:`same_host` compares them: its short name, an IP
    address whole, and an EC2 name ("ip-10-0-14-110", also with its domain) as its address (the
    address a peer's connection names)."""
    host = host.lower()
    m = _EC2_NAME.fullmatch(host)
    if m:
        return ".".join(m.groups())
    return host if _IPV4.fullmatch(host) else host.split(".", 1)[0]



MAX_HOSTLIST = 4096  # hosts one Slurm node list expands to, at most (a 4,096-node job's)
_HOSTLIST_TEXT = re.compile(r"[A-Za-z0-9._-]*")
_HOSTLIST_RANGES = re.compile(r"\[(?P<ranges>[0-9,\s-]{1,2000})\]")


def _bracket_numbers(ranges: str, limit: int) -> list[str]:
    """The numbers of one bracket of a Slurm node list ("001-004,017"), zero-padded as written."""
    out: list[str] = []
    for part in ranges.replace(" ", "").split(","):
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            continue
        width = len(lo)
        for n in range(int(lo), (int(hi) if hi else int(lo)) + 1):
            out.append(f"{n:0{width}d}")
            if len(out) >= limit:
                return out
    return out


def expand_hostlist(text: str, limit: int = MAX_HOSTLIST) -> list[str]:
    """The hosts of a Slurm node list (``node[001-004,017],gpu-a1``), in its order; zero-padded
    numbers keep their width; a name of several brackets (``rack[1-2]-n[01-04]``) is each of
    their combinations, the last bracket's numbers varying fastest, as Slurm writes them; at most
    ``limit`` hosts (a list that names more is cut there). A name that is no host's shape is left
    out; a bracket that does not close ends the list."""
    out: list[str] = []
    pos = 0
    while pos < len(text) and len(out) < limit:
        start = pos
        names = [""]
        while True:
            lit = _HOSTLIST_TEXT.match(text, pos)
            assert lit is not None  # (it matches the empty string)
            pos = lit.end()
            names = [n + lit.group() for n in names]
            brackets = _HOSTLIST_RANGES.match(text, pos)
            if brackets is None:
                break
            pos = brackets.end()
            numbers = _bracket_numbers(brackets["ranges"], limit)
            names = list(itertools.islice((n + v for n in names for v in numbers), limit))
        if pos == start or text.startswith("[", pos):
            break  # (nothing more, or a bracket that does not close: the list was cut)
        for name in names:
            if name and names_a_host(name):
                out.append(name)
                if len(out) >= limit:
                    break
        if pos < len(text) and text[pos] == ",":
            pos += 1
        else:
            break
    return out
