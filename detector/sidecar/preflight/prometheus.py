"""Probe of the Prometheus a sidecar reads DCGM series from: reachable and ready, and whether
it holds dcgm-exporter's series."""

from __future__ import annotations

import urllib.error
import urllib.parse

from detector.sidecar.config import prometheus_url_problem
from detector.sidecar.preflight.probe import Level, Outside, Probe


def probe_prometheus(url: str, out: Outside, timeout_s: float) -> list[Probe]:
    what = f"prometheus {url}"
    problem = prometheus_url_problem(url)
    if problem is not None:
        return [Probe(Level.FAIL, what, problem, "e.g. http://prometheus.monitoring:9090")]
    base = url.rstrip("/")
    try:
        status, _ = out.http_get(f"{base}/-/ready", timeout_s)
        if status == 404:  # a Prometheus-compatible API without /-/ready (Thanos Query, Mimir, ...)
            status, _ = out.http_get(f"{base}/api/v1/query?query=1", timeout_s)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return [Probe(Level.FAIL, what, f"unreachable within {timeout_s:g} s: {reason}",
                      "check the URL and that this node may reach it (network policy, firewall, proxy "
                      "variables)")]
    if status != 200:
        return [Probe(Level.FAIL, what, f"answered HTTP {status}", "check the URL (and a path prefix, if any)")]
    probes = [Probe(Level.OK, what, "ready")]
    query = "count(DCGM_FI_DEV_XID_ERRORS) or count(DCGM_FI_DEV_XID_ERROR)"
    try:
        status, body = out.http_get(f"{base}/api/v1/query?" + urllib.parse.urlencode({"query": query}), timeout_s)
        has_dcgm = status == 200 and b'"result":[]' not in body.replace(b" ", b"")
    except (urllib.error.URLError, OSError, ValueError):
        has_dcgm = False
    if not has_dcgm:
        probes.append(Probe(Level.WARN, "prometheus DCGM series", "no DCGM_FI_DEV_XID_ERRORS series: GPU faults "
                            "come only from the kernel log and NVML", "let this Prometheus scrape dcgm-exporter (:9400)"))
    else:
        probes.append(Probe(Level.OK, "prometheus DCGM series", "present"))
    return probes
