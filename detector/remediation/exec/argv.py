"""Strict checks on every value that ends up in a command's argument list.

Text from logs never reaches a shell (no hook uses one), and only these checked values, or text
reduced to a safe character set, are put into argv.
"""

from __future__ import annotations

import re

NODE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")
JOB_ID_RE = re.compile(r"^\d+(_\d+)?$")
# Kubernetes: a DNS-1123 label (namespaces) and simple equality label selectors.
K8S_NAME_RE = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_LABEL_KEY = r"([A-Za-z0-9]([-A-Za-z0-9_.]{0,251}[A-Za-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?"
_LABEL_VALUE = r"([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?"
K8S_SELECTOR_RE = re.compile(rf"^{_LABEL_KEY}(==?|!=){_LABEL_VALUE}(,{_LABEL_KEY}(==?|!=){_LABEL_VALUE})*$")
K8S_LABEL_KEY_RE = re.compile(rf"^{_LABEL_KEY}$")
ENV_NAME_RE = re.compile(r"^[A-Z_][A-Z0-9_]{0,63}$")

_UNSAFE = re.compile(r"[^A-Za-z0-9 ._:/=+-]+")
_SPACES = re.compile(r"\s+")
_TOKEN_UNSAFE = re.compile(r"[^A-Za-z0-9._:-]+")


# names a scheduler reads as more than one node: Slurm's "NodeName=ALL" updates every node of the
# cluster (a log line naming the host "ALL" must not drain them all), and words that stand for a
# host rather than name one
RESERVED_NODE_NAMES = frozenset({"all", "none", "localhost", "default", "unknown", "node", "nodes", "host", "hostname"})


def valid_node(name: object) -> bool:
    return (isinstance(name, str) and NODE_RE.fullmatch(name) is not None
            and name.lower() not in RESERVED_NODE_NAMES)


def valid_job_id(job_id: object) -> bool:
    return isinstance(job_id, str) and JOB_ID_RE.fullmatch(job_id) is not None


def safe_text(text: str, max_len: int = 120) -> str:
    """Reduce ``text`` to ``[A-Za-z0-9 ._:/=+-]`` (others become ``_``), one line, ``max_len``.

    For free text that must go into argv as one inert argument (a drain reason)."""
    cleaned = _SPACES.sub(" ", _UNSAFE.sub("_", text)).strip()
    return cleaned[:max_len].rstrip()


def safe_token(text: str, max_len: int = 80) -> str:
    """An identifier reduced to ``[A-Za-z0-9._:-]`` (incident ids in reasons and variables)."""
    cleaned = _TOKEN_UNSAFE.sub("_", text).strip("_-") or "unnamed"
    return cleaned[:max_len]


def drain_reason(cause: str, incident_id: str) -> str:
    """The Reason a drain carries: ``rankdoctor: <cause> <incident>``."""
    return safe_text(f"rankdoctor: {cause} {safe_token(incident_id)}")
