"""Exporters: write a Run's streams the way someone collected/exported them."""
from __future__ import annotations

import csv
import gzip
import io
import json

from b5_core import (MON, MON_DE, f_ctime, f_ctime_de, f_iso, f_iso_nano, f_kibana, f_syslog,
                     hexid, alnum, utc)

ANSI = ["\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[34m", "\x1b[35m", "\x1b[36m", "\x1b[91m", "\x1b[92m", "\x1b[94m", "\x1b[96m"]
RST = "\x1b[0m"


def _sorted(st):
    return sorted(st.lines, key=lambda x: (x[3] if len(x) > 3 and x[3] is not None else x[0]))


# ----------------------------------------------------------------- kernel renderings
def kernel_lines(st, fmt, host=None):
    """Render one node's kernel (+ syslog daemon) stream in a given format -> list[str]."""
    host = host or st.meta.get("host")
    boot = st.meta.get("boot", 0.0)
    recs = [(t, "kernel", text, prio) for (t, text, prio, *_r) in st.lines]
    if fmt in ("kernlog", "journal-short-iso", "journal-short-de", "journal-json", "rfc5424"):
        recs += [(t, ident, text, 6) for (t, ident, text) in st.meta.get("syslog", [])]
    recs.sort(key=lambda r: r[0])
    out = []
    for (t, ident, text, prio) in recs:
        up = t - boot
        if fmt == "dmesg":
            out.append(f"[{up:12.6f}] {text}")
        elif fmt == "dmesg-T":
            out.append(f"[{f_ctime(t)}] {text}")
        elif fmt == "dmesg-T-de":
            out.append(f"[{f_ctime_de(t)}] {text}")
        elif fmt == "dmesg-iso":
            d = utc(t)
            out.append(f"{d.strftime('%Y-%m-%dT%H:%M:%S')},{d.microsecond:06d}+00:00 {text}")
        elif fmt == "kernlog":
            if ident == "kernel":
                out.append(f"{f_syslog(t)} {host} kernel: [{up:12.6f}] {text}")
            else:
                out.append(f"{f_syslog(t)} {host} {ident}: {text}")
        elif fmt == "journal-short-iso":
            out.append(f"{utc(t).strftime('%Y-%m-%dT%H:%M:%S')}+0000 {host} {ident}: {text}")
        elif fmt == "journal-short-de":
            d = utc(t)
            out.append(f"{MON_DE[d.month - 1]} {d.day:02d} {d.strftime('%H:%M:%S')} {host} {ident}: {text}")
        elif fmt == "rfc5424":
            pri = 0 * 8 + prio if ident == "kernel" else 3 * 8 + 6
            app = ident.split("[")[0]
            out.append(f"<{pri}>1 {f_iso(t, 6, '+00:00')} {host} {app} - - - {text}")
        elif fmt == "journal-json":
            out.append(json.dumps(journal_record(t, host, ident, text, prio, boot), separators=(",", ":")))
    return out


def journal_record(t, host, ident, text, prio, boot, extra=None):
    us = int(t * 1e6)
    rec = {"__CURSOR": f"s={hexid_static(host, 32)};i={us % 999983:x};b={hexid_static(host + 'b', 32)};m={us % 7777777:x};t={us:x};x={(us * 7) % (1 << 48):x}",
           "__REALTIME_TIMESTAMP": str(us), "__MONOTONIC_TIMESTAMP": str(int((t - boot) * 1e6)),
           "_BOOT_ID": hexid_static(host + "boot", 32), "_HOSTNAME": host, "PRIORITY": str(prio)}
    if ident == "kernel":
        rec.update({"_TRANSPORT": "kernel", "SYSLOG_FACILITY": "0", "SYSLOG_IDENTIFIER": "kernel",
                    "_SOURCE_MONOTONIC_TIMESTAMP": str(int((t - boot) * 1e6))})
    else:
        name, _, pid = ident.partition("[")
        rec.update({"_TRANSPORT": "syslog", "SYSLOG_FACILITY": "3", "SYSLOG_IDENTIFIER": name})
        if pid:
            rec["SYSLOG_PID"] = pid.rstrip("]")
            rec["_PID"] = pid.rstrip("]")
    if extra:
        rec.update(extra)
    rec["MESSAGE"] = text
    return rec


def hexid_static(seed, n):
    import hashlib
    return hashlib.sha256(seed.encode()).hexdigest()[:n]


# ----------------------------------------------------------------- app line post-processing
def maybe_rotate_gzip(rng, path, text, files, allow=True):
    """Write a native log file, sometimes rotated, gzip-compressed or with a truncated tail."""
    if not allow:
        files[path] = text
        return
    r = rng.random()
    if r < 0.08 and text.count("\n") > 60:
        lines = text.split("\n")
        cut = len(lines) // rng.randint(2, 4)
        files[path + ".1"] = "\n".join(lines[:cut]) + "\n"
        files[path] = "\n".join(lines[cut:])
    elif r < 0.14 and len(text) > 2000:
        files[path + ".gz"] = gzip.compress(text.encode(), mtime=0)
    else:
        files[path] = text


def truncate_tail(rng, text):
    """A process killed mid-write leaves a partial last line."""
    lines = text.rstrip("\n").split("\n")
    if not lines or len(lines[-1]) < 20:
        return text
    last = lines[-1]
    lines[-1] = last[: rng.randint(8, len(last) - 5)]
    return "\n".join(lines)


# ============================================================================ exporters
class Exporter:
    def __init__(self, rng, R, platform, streams):
        self.rng = rng
        self.R = R
        self.pf = platform
        self.streams = streams
        self.files = {}

    def app_streams(self):
        return [s for s in self.streams if s.kind == "app"]

    def kernel_streams(self):
        return [s for s in self.streams if s.kind == "kernel"]

    def text_streams(self):
        return [s for s in self.streams if s.kind == "text"]

    def write_text_streams(self):
        for s in self.text_streams():
            self.files[s.meta["path"]] = "\n".join(l[1] for l in sorted(s.lines, key=lambda x: x[0])) + "\n"

    def write_kernel_native(self, fmt=None, prefix="nodes"):
        rng = self.rng
        fmt0 = fmt
        for s in self.kernel_streams():
            fmt = fmt0 or rng.choice(["dmesg", "dmesg-T", "dmesg-T", "dmesg-iso", "kernlog", "journal-short-iso",
                                      "dmesg-T-de", "journal-short-de"])
            host = s.meta.get("host")
            lines = kernel_lines(s, fmt)
            if not lines:
                continue
            name = {"dmesg": "dmesg.txt", "dmesg-T": "dmesg-T.txt", "dmesg-T-de": "dmesg.txt", "dmesg-iso": "dmesg.log",
                    "kernlog": "kern.log", "journal-short-iso": "journal-k.txt", "journal-short-de": "journalctl.txt",
                    "journal-json": "journal.json"}[fmt]
            self.files[f"{prefix}/{host}/{name}"] = "\n".join(lines) + "\n"

    def write_native_app(self, allow_mangle=True):
        rng = self.rng
        for s in self.app_streams():
            path = s.meta.get("path")
            if not path:
                continue
            lines = _sorted(s)
            if not lines:
                continue
            text = "\n".join(l[1] for l in lines) + "\n"
            if s.meta.get("truncate") or (allow_mangle and rng.random() < 0.06):
                text = truncate_tail(rng, text)
            maybe_rotate_gzip(rng, path, text, self.files, allow_mangle)

    def run(self):
        raise NotImplementedError


class Native(Exporter):
    name = "native"

    def run(self):
        self.write_native_app()
        self.write_kernel_native()
        self.write_text_streams()
        return self.files


class Kubectl(Exporter):
    name = "kubectl"

    def run(self):
        rng = self.rng
        R = self.R
        mode = rng.choice(["prefix-one-file", "prefix-one-file", "per-pod", "prefix-follow"])
        ns, job = R.meta["ns"], R.meta["job"]
        ts_on = rng.random() < 0.85
        if mode in ("prefix-one-file", "prefix-follow"):
            out = []
            cmd = (f"$ kubectl logs -n {ns} -l training.kubeflow.org/job-name={job} --prefix "
                   f"{'--timestamps ' if ts_on else ''}--all-containers --max-log-requests=64 "
                   f"{'-f ' if mode == 'prefix-follow' else ''}--tail=-1")
            if rng.random() < 0.5:
                out.append(cmd)
            if mode == "prefix-one-file":
                for s in self.app_streams():
                    for (t, text, std, *rest) in _sorted(s):
                        out.append(f"[pod/{s.meta['pod']}/{s.meta['container']}] " + (f"{f_iso_nano(t)} " if ts_on else "") + text)
            else:
                allr = []
                for s in self.app_streams():
                    for (t, text, std, *rest) in s.lines:
                        tt = rest[0] if rest and rest[0] is not None else t
                        allr.append((tt + rng.uniform(0, 0.05), f"[pod/{s.meta['pod']}/{s.meta['container']}] " + (f"{f_iso_nano(t)} " if ts_on else "") + text))
                allr.sort(key=lambda x: x[0])
                out += [x[1] for x in allr]
            self.files[f"kubectl-logs-{job}.txt"] = "\n".join(out) + "\n"
        else:
            for s in self.app_streams():
                lines = _sorted(s)
                if not lines:
                    continue
                txt = "\n".join((f"{f_iso_nano(t)} " if ts_on else "") + text for (t, text, std, *r) in lines) + "\n"
                self.files[f"pods/{s.meta['pod']}.log"] = txt
        for s in self.kernel_streams():
            fmt = rng.choice(["journal-short-iso", "journal-short-iso", "dmesg-T", "journal-json"])
            lines = kernel_lines(s, fmt)
            if lines:
                ext = "json" if fmt == "journal-json" else "txt"
                self.files[f"node-logs/{s.meta['host']}-journal-k.{ext}"] = "\n".join(lines) + "\n"
        self.write_text_streams()
        return self.files


class Stern(Exporter):
    name = "stern"

    def run(self):
        rng = self.rng
        R = self.R
        color = rng.random() < 0.7
        ts_on = rng.random() < 0.8
        out = []
        allr = []
        cmap = {}
        for i, s in enumerate(self.app_streams()):
            cmap[s.sid] = ANSI[i % len(ANSI)]
            pod, c = s.meta["pod"], s.meta["container"]
            first = min((x[0] for x in s.lines), default=R.t0)
            hdr = (f"{cmap[s.sid]}+ {pod} \u203a {c}{RST}" if color else f"+ {pod} \u203a {c}")
            allr.append((first - 30 + i * 0.01, hdr))
            for (t, text, std, *rest) in s.lines:
                tt = rest[0] if rest and rest[0] is not None else t
                p = f"{cmap[s.sid]}{pod}{RST} {ANSI[(i + 3) % len(ANSI)]}{c}{RST}" if color else f"{pod} {c}"
                allr.append((tt + rng.uniform(0, 0.2), p + " " + (f"{f_iso_nano(t)} " if ts_on else "") + text))
        allr.sort(key=lambda x: x[0])
        out += [x[1] for x in allr]
        if R.t_end and R.exit_code != 0:
            for s in self.app_streams()[:3]:
                out.append(f"- {s.meta['pod']} \u203a {s.meta['container']}")
        self.files[f"stern-{R.meta['ns']}.log"] = "\n".join(out) + "\n"
        for s in self.kernel_streams():
            lines = kernel_lines(s, rng.choice(["journal-short-iso", "dmesg-T"]))
            if lines:
                self.files[f"nodes/{s.meta['host']}.kern.txt"] = "\n".join(lines) + "\n"
        self.write_text_streams()
        return self.files


class Loki(Exporter):
    name = "loki"

    def run(self):
        rng = self.rng
        R = self.R
        mode = rng.choice(["logcli", "logcli", "jsonl", "grafana-json"])
        recs = []
        for s in self.app_streams():
            pod = s.meta.get("pod") or s.meta.get("host") or "driver"
            labels = {"app": R.meta.get("job", "ray"), "container": s.meta.get("container", "ray"),
                      "namespace": R.meta.get("ns", "ray"), "pod": pod}
            ni = s.node_idx
            if ni is not None and R.nodes[ni].k8s_node:
                labels["node_name"] = R.nodes[ni].k8s_node
            if s.meta.get("path"):
                labels["filename"] = "/tmp/ray/" + s.meta["path"].split("/", 2)[-1] if s.meta["path"].startswith("ray-logs") else s.meta["path"]
            for (t, text, std, *r) in s.lines:
                lab = dict(labels)
                lab["stream"] = std if std in ("stdout", "stderr") else "stdout"
                recs.append((t, lab, text))
        for s in self.kernel_streams():
            for line in kernel_lines(s, "dmesg"):
                pass
            for (t, text, prio, *r) in s.lines:
                recs.append((t, {"job": "systemd-journal", "host": s.meta["host"], "unit": "kernel",
                                 "priority": {3: "err", 4: "warning", 6: "info"}.get(prio, "notice")}, text))
        recs.sort(key=lambda r: r[0], reverse=True)       # Loki returns newest first by default
        out = []
        if mode == "logcli":
            q = "{namespace=\"%s\"} |= ``" % R.meta.get("ns", "ray")
            out.append(f"# logcli query '{q}' --since=12h --limit=200000 --batch=5000")
            for (t, lab, text) in recs:
                ls = "{" + ", ".join(f'{k}="{v}"' for k, v in sorted(lab.items())) + "}"
                out.append(f"{f_iso(t, 0) if rng.random() < 0 else utc(t).strftime('%Y-%m-%dT%H:%M:%S') + 'Z'} {ls} {text}")
            self.files["loki-query.txt"] = "\n".join(out) + "\n"
        elif mode == "jsonl":
            for (t, lab, text) in recs:
                out.append(json.dumps({"labels": lab, "line": text, "timestamp": f_iso(t, 9, "Z")}, ensure_ascii=False))
            self.files["loki-export.jsonl"] = "\n".join(out) + "\n"
        else:
            # Grafana Explore "Download logs" (JSON): a frame with parallel arrays
            frame = {"schema": {"name": "logs", "fields": [{"name": "labels", "type": "other"}, {"name": "Time", "type": "time"},
                                                           {"name": "Line", "type": "string"}, {"name": "tsNs", "type": "string"}]},
                     "data": {"values": [[r[1] for r in recs], [int(r[0] * 1000) for r in recs], [r[2] for r in recs],
                                         [str(int(r[0] * 1e9)) for r in recs]]}}
            self.files["grafana-explore-logs.json"] = json.dumps(frame, ensure_ascii=False)
        self.write_text_streams()
        return self.files


def _merge_multiline(lines):
    """Filebeat-style multiline: continuation lines (indented, 'Traceback', frames) join the previous event."""
    merged = []
    for (t, text, std, *r) in lines:
        body = text
        core = body.split("]:", 1)[-1] if body.startswith("[rank") else body
        cont = (core.startswith(("  ", "\t", "Traceback", "frame #", "During handling", "The above exception",
                                 "Exception raised from", "    ")) or core.strip() == "")
        if merged and cont:
            merged[-1][1] += "\n" + text
        else:
            merged.append([t, text, std])
    return merged


class Elastic(Exporter):
    name = "elastic"

    def run(self):
        rng = self.rng
        R = self.R
        k8s = any(s.meta.get("pod") for s in self.app_streams())
        rows = []
        multiline = rng.random() < 0.6
        for s in self.app_streams():
            lines = _sorted(s)
            ev = _merge_multiline(lines) if multiline else [[t, x, std] for (t, x, std, *r) in lines]
            ni = s.node_idx
            host = (R.nodes[ni].k8s_node or R.nodes[ni].host) if ni is not None else R.nodes[0].host
            for (t, text, std) in ev:
                rows.append((t, host, s.meta.get("pod", ""), s.meta.get("path") or f"/var/log/containers/{s.meta.get('pod', 'x')}_{R.meta.get('ns', 'default')}_{s.meta.get('container', 'c')}-{hexid_static(s.sid, 64)}.log", text))
        for s in self.kernel_streams():
            for (t, text, prio, *r) in s.lines:
                rows.append((t, s.meta["host"], "", "/var/log/kern.log", text))
            for (t, ident, text) in s.meta.get("syslog", []):
                rows.append((t, s.meta["host"], "", "/var/log/syslog", f"{ident}: {text}"))
        rows.sort(key=lambda r: r[0], reverse=rng.random() < 0.8)
        buf = io.StringIO()
        w = csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n")
        if k8s:
            w.writerow(["@timestamp", "host.name", "kubernetes.pod.name", "log.file.path", "message"])
            for (t, h, pod, path, msg) in rows:
                w.writerow([f_kibana(t), h, pod or "-", path, msg])
        else:
            w.writerow(["@timestamp", "host.name", "log.file.path", "message"])
            for (t, h, pod, path, msg) in rows:
                w.writerow([f_kibana(t), h, path, msg])
        self.files[f"kibana-discover-export-{utc(R.t_end or R.t0).strftime('%Y%m%d')}.csv"] = buf.getvalue()
        self.write_text_streams()
        return self.files


class Datadog(Exporter):
    name = "datadog"

    def run(self):
        rng = self.rng
        R = self.R
        rows = []
        svc = R.meta.get("job") or R.meta.get("jobname") or "training"
        for s in self.app_streams():
            ni = s.node_idx
            host = (R.nodes[ni].k8s_node or R.nodes[ni].host) if ni is not None else R.nodes[0].host
            for (t, text, std, *r) in s.lines:
                status = "error" if std == "stderr" and any(k in text for k in ("Error", "ERROR", "error", "Traceback", "WARN", "Killed")) else "info"
                rows.append((t, host, svc, status, text))
        for s in self.kernel_streams():
            for (t, text, prio, *r) in s.lines:
                rows.append((t, s.meta["host"], "kernel", "error" if prio <= 3 else "warn" if prio == 4 else "info", text))
        rows.sort(key=lambda r: r[0], reverse=True)
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(["Date", "Host", "Service", "Status", "Message"])
        for (t, h, sv, st, msg) in rows:
            w.writerow([f_iso(t, 3), h, sv, st, msg])
        self.files["datadog-logs-export.csv"] = buf.getvalue()
        self.write_text_streams()
        return self.files


class CloudWatch(Exporter):
    name = "cloudwatch"

    def run(self):
        rng = self.rng
        R = self.R
        mode = rng.choice(["filter-log-events", "insights-csv", "get-log-events"])
        recs = []
        sm = R.meta.get("job") and any(s.meta.get("log_stream") for s in self.app_streams())
        for s in self.app_streams():
            if s.meta.get("log_stream"):
                ls = s.meta["log_stream"]
                for (t, text, std, *r) in s.lines:
                    recs.append((t, ls, text))
            else:
                # EKS + Fluent Bit (Container Insights): the message is a JSON document
                ni = s.node_idx
                n = R.nodes[ni] if ni is not None else R.nodes[0]
                ls = f"{n.k8s_node or n.host}-application.var.log.containers.{s.meta.get('pod', n.host)}_{R.meta.get('ns', 'default')}_{s.meta.get('container', 'main')}-{hexid_static(s.sid, 64)}.log"
                for (t, text, std, *r) in s.lines:
                    doc = {"log": text, "stream": std if std in ("stdout", "stderr") else "stdout",
                           "kubernetes": {"pod_name": s.meta.get("pod", n.host), "namespace_name": R.meta.get("ns", "default"),
                                          "container_name": s.meta.get("container", "main"), "host": n.k8s_node or n.host}}
                    recs.append((t, ls, json.dumps(doc, ensure_ascii=False)))
        for s in self.kernel_streams():
            ls = f"{s.meta['host']}-dmesg"
            for (t, text, prio, *r) in s.lines:
                recs.append((t, ls, json.dumps({"host": s.meta["host"], "ident": "kernel", "message": text})))
        recs.sort(key=lambda r: r[0])
        group = "/aws/sagemaker/TrainingJobs" if sm else f"/aws/containerinsights/{R.meta.get('job', 'eks')}/application"
        if mode in ("filter-log-events", "get-log-events") and sm is False:
            mode = "filter-log-events"
        if mode == "filter-log-events":
            evs = []
            for (t, ls, msg) in recs:
                evs.append({"logStreamName": ls, "timestamp": int(t * 1000), "message": msg,
                            "ingestionTime": int(t * 1000) + rng.randint(200, 4000),
                            "eventId": str(int(t * 1000)) + str(rng.randint(10 ** 40, 10 ** 41))[:40]})
            doc = {"events": evs, "searchedLogStreams": [{"logStreamName": x, "searchedCompletely": True}
                                                         for x in sorted({r[1] for r in recs})]}
            self.files[f"cloudwatch-{group.strip('/').replace('/', '_')}.json"] = json.dumps(doc, indent=2, ensure_ascii=False)
        elif mode == "get-log-events":
            by = {}
            for (t, ls, msg) in recs:
                by.setdefault(ls, []).append({"timestamp": int(t * 1000), "message": msg, "ingestionTime": int(t * 1000) + rng.randint(200, 3000)})
            for ls, evs in by.items():
                fn = ls.split("/")[-1]
                self.files[f"cloudwatch/{fn}.json"] = json.dumps({"events": evs, "nextForwardToken": "f/" + str(rng.randint(10 ** 55, 10 ** 56)),
                                                                  "nextBackwardToken": "b/" + str(rng.randint(10 ** 55, 10 ** 56))}, indent=1, ensure_ascii=False)
        else:
            buf = io.StringIO()
            w = csv.writer(buf, lineterminator="\n")
            w.writerow(["@timestamp", "@logStream", "@message"])
            for (t, ls, msg) in sorted(recs, key=lambda r: r[0], reverse=True)[:10000]:
                d = utc(t)
                w.writerow([d.strftime("%Y-%m-%d %H:%M:%S") + f".{d.microsecond // 1000:03d}", ls, msg])
            self.files["logs-insights-results.csv"] = buf.getvalue()
        if R.meta.get("sm_describe"):
            self.files["describe-training-job.json"] = json.dumps(R.meta["sm_describe"], indent=4)
        self.write_text_streams()
        return self.files


class Gcp(Exporter):
    name = "gcp"

    def run(self):
        rng = self.rng
        R = self.R
        proj = R.meta.get("project") or rng.choice(["ml-prod-4471", "llm-research-01"])
        entries = []
        pf = self.pf.name
        for s in self.app_streams():
            ni = s.node_idx
            n = R.nodes[ni] if ni is not None else R.nodes[0]
            for (t, text, std, *r) in s.lines:
                sev = "ERROR" if std == "stderr" else "INFO"
                e = {"insertId": alnum(rng, 14, "0123456789abcdefghijklmnopqrstuvwxyz"),
                     "logName": f"projects/{proj}/logs/{std if std in ('stdout', 'stderr') else 'stdout'}",
                     "receiveTimestamp": f_iso(t + rng.uniform(0.5, 6), 9), "severity": sev,
                     "textPayload": text, "timestamp": f_iso(t, 9)}
                if pf == "vertex":
                    e["logName"] = f"projects/{proj}/logs/workerpool{0 if n.idx == 0 else 1}-replica-{max(0, n.idx - 1)}"
                    e["resource"] = {"type": "ml_job", "labels": {"job_id": R.meta["job_id"], "project_id": proj,
                                                                  "task_name": n.host}}
                    e["labels"] = {"ml.googleapis.com/task_name": n.host, "ml.googleapis.com/trial_id": "",
                                   "compute.googleapis.com/resource_name": n.aliases[0]}
                elif pf == "tpuvm":
                    e["resource"] = {"type": "tpu_worker", "labels": {"node_id": R.meta["tpu_name"], "project_id": proj,
                                                                      "worker_id": str(n.idx), "zone": R.meta["zone"]}}
                    e["labels"] = {"hostname": n.host}
                elif n.k8s_node:
                    e["resource"] = {"type": "k8s_container", "labels": {"cluster_name": "ml-cluster", "container_name": s.meta.get("container", "main"),
                                                                         "location": "us-central1", "namespace_name": R.meta.get("ns", "default"),
                                                                         "pod_name": s.meta.get("pod", n.host), "project_id": proj}}
                    e["labels"] = {"compute.googleapis.com/resource_name": n.k8s_node,
                                   "k8s-pod/job-name": R.meta.get("job", "")}
                else:
                    e["resource"] = {"type": "gce_instance", "labels": {"instance_id": str(10 ** 18 + n.idx * 7919), "project_id": proj, "zone": "us-central1-a"}}
                    e["labels"] = {"compute.googleapis.com/resource_name": n.host}
                    e["logName"] = f"projects/{proj}/logs/ray"
                entries.append((t, e))
        for s in self.kernel_streams():
            for (t, text, prio, *r) in s.lines:
                e = {"insertId": alnum(rng, 14, "0123456789abcdefghijklmnopqrstuvwxyz"),
                     "logName": f"projects/{proj}/logs/syslog", "receiveTimestamp": f_iso(t + rng.uniform(1, 9), 9),
                     "resource": {"type": "gce_instance", "labels": {"instance_id": str(10 ** 18 + 31 * hash_small(s.meta['host'])),
                                                                     "project_id": proj, "zone": R.meta.get("zone", "us-central1-a")}},
                     "severity": "ERROR" if prio <= 3 else "WARNING" if prio == 4 else "INFO",
                     "textPayload": f"{f_syslog(t)} {s.meta['host']} kernel: [{t - s.meta.get('boot', 0):12.6f}] {text}",
                     "timestamp": f_iso(t, 9)}
                entries.append((t, e))
        for (t, e) in R.meta.get("gcp_extra", []):
            entries.append((t, e))
        entries.sort(key=lambda x: x[0], reverse=True)      # gcloud logging read: newest first
        self.files["gcloud-logging-read.json"] = json.dumps([e for _, e in entries], indent=2, ensure_ascii=False)
        self.write_text_streams()
        return self.files


def hash_small(s):
    import hashlib
    return int(hashlib.md5(s.encode()).hexdigest()[:6], 16)


class Journald(Exporter):
    """Native app files; node logs as `journalctl -o json` (or short-iso) per node."""
    name = "journald"

    def run(self):
        rng = self.rng
        self.write_native_app()
        fmt = rng.choice(["journal-json", "journal-json", "journal-short-iso", "journal-short-de"])
        for s in self.kernel_streams():
            lines = kernel_lines(s, fmt)
            if lines:
                ext = "json" if fmt == "journal-json" else "txt"
                self.files[f"journal/{s.meta['host']}.{ext}"] = "\n".join(lines) + "\n"
        self.write_text_streams()
        return self.files


class Syslog(Exporter):
    """Native app files + the central rsyslog server's file with every node's forwarded kernel log."""
    name = "syslog"

    def run(self):
        rng = self.rng
        self.write_native_app()
        fmt = rng.choice(["kernlog", "kernlog", "rfc5424"])
        allr = []
        for s in self.kernel_streams():
            host = s.meta["host"]
            ni = s.node_idx
            if rng.random() < 0.3 and self.R.nodes[ni].aliases:
                pass
            lines = kernel_lines(s, fmt, host=host)
            recs = [(t, 0) for (t, *_r) in s.lines] + [(t, 1) for (t, *_r) in s.meta.get("syslog", [])]
            ts = sorted(x[0] for x in recs)
            for t, l in zip(ts, lines):
                allr.append((t, l))
        allr.sort(key=lambda x: x[0])
        self.files["syslog-server/remote-hosts.log"] = "\n".join(l for _, l in allr) + "\n"
        self.write_text_streams()
        return self.files


class CI(Exporter):
    """A CI job (GitHub Actions / GitLab) ran the multi-node test and dumped the logs."""
    name = "ci"

    def run(self):
        rng = self.rng
        R = self.R
        flavor = rng.choice(["gha", "gitlab"])
        t = R.t0 - rng.uniform(120, 400)
        out = []
        clock = [t]

        def emit(text, dt=0.05):
            clock[0] += dt
            if flavor == "gha":
                out.append(f"{f_iso(clock[0], 7)} {text}")
            else:
                out.append(text)

        def section(name, title):
            if flavor == "gha":
                emit(f"##[group]{title}")
            else:
                out.append(f"section_start:{int(clock[0])}:{name}\r\x1b[0K\x1b[36;1m{title}\x1b[0;m")

        def endsec(name):
            if flavor == "gha":
                emit("##[endgroup]")
            else:
                out.append(f"section_end:{int(clock[0])}:{name}\r\x1b[0K")

        if flavor == "gitlab":
            out.append(f"\x1b[0KRunning with gitlab-runner 16.{rng.randint(3, 11)}.{rng.randint(0, 3)} (hash {hexid(rng, 8)})\x1b[0;m")
            out.append(f"\x1b[0K  on gpu-runner-{rng.randint(1, 9)} {alnum(rng, 8)}, system ID: s_{hexid(rng, 12)}\x1b[0;m")
        section("submit", "Run ./ci/launch_multinode.sh")
        emit(f"+ ./ci/launch_multinode.sh --nodes {len(R.nodes)} --gpus-per-node {R.gpn}")
        if self.pf.name == "slurm":
            emit(f"Submitted batch job {R.meta['jobid']}")
        elif self.pf.name == "k8s":
            emit(f"{R.meta.get('operator', 'pytorchjob')}.kubeflow.org/{R.meta['job']} created")
        endsec("submit")
        clock[0] = (R.t_end or R.t0 + 600) + rng.uniform(20, 90)
        section("wait", "Wait for completion")
        emit(f"job state: {'COMPLETED' if R.exit_code == 0 else 'FAILED'} (exit {R.exit_code})")
        endsec("wait")
        section("logs", "Collect logs")
        for s in self.app_streams():
            lines = _sorted(s)
            if not lines:
                continue
            src = s.meta.get("path") or s.meta.get("pod") or s.sid
            emit(f"===== {src} =====")
            for (tl, text, std, *r) in lines:
                emit(text, 0.0001)
        endsec("logs")
        ks = self.kernel_streams()
        if ks:
            section("diag", "Collect node diagnostics")
            for s in ks:
                emit(f"+ ssh {s.meta['host']} sudo dmesg -T | tail -n 300")
                for l in kernel_lines(s, "dmesg-T")[-300:]:
                    emit(l, 0.0001)
            endsec("diag")
        for s in self.text_streams():
            emit(f"+ cat {s.meta['path']}")
            for (t2, text, *r) in sorted(s.lines, key=lambda x: x[0]):
                emit(text, 0.0001)
        if R.exit_code != 0:
            if flavor == "gha":
                emit("##[error]Process completed with exit code 1.")
            else:
                out.append("\x1b[0;33mCleaning up project directory and file based variables\x1b[0;m")
                out.append("\x1b[31;1mERROR: Job failed: exit code 1\n\x1b[0;m")
        else:
            if flavor == "gitlab":
                out.append("\x1b[32;1mJob succeeded\x1b[0;m")
        name = "ci-job.log" if flavor == "gha" else "job.log"
        self.files[name] = "\n".join(out) + "\n"
        return self.files


EXPORTERS = {"native": Native, "kubectl": Kubectl, "stern": Stern, "loki": Loki, "elastic": Elastic,
             "datadog": Datadog, "cloudwatch": CloudWatch, "gcp": Gcp, "journald": Journald,
             "syslog": Syslog, "ci": CI}
