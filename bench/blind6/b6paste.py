"""Compose what a user hands over: an issue, a forum post, a chat log, an e-mail..."""
import gzip
import re

import b6text as T
from b6base import Piece
from b6prose import L10N, LAUNCH, MODELS, JOURNAL_MONTHS, dur_text
from b6world import f_rfc2822

LAYOUTS = ["issue", "forum", "email", "chat", "tailcat", "screen", "ocr", "attach", "jira", "attempts", "so", "gist"]

FENCES = ["```", "```", "```", "```text", "```bash", "```console", "```log", "~~~", "```shell", "```python", "```sh", "```plaintext"]


def rank_patterns(r):
    return [re.compile(p) for p in (
        rf"\[rank{r}\]", rf"\[Rank {r}\]", rf"Rank {r} is running", rf"rank\s+:\s*{r} \(", rf"^\s*{r}: ",
        rf"\[1,{r}\]", rf"mpirank:{r},", rf"process rank {r} ", rf"\btasks? {r}:", rf"# rank {r}\b", rf"\[rank {r}\]",
        rf"missing ranks: \{{{r}\}}", rf"\[{r}\] finished collective", rf",1\],{r}\]", rf"Rank={r}\b",
        rf"==> \S*?(?:rank|_|-|process_){r}\.(?:log|out|txt|err)", rf"but Rank {r} is running", rf"\brank {r}\b")]


class Paste:
    def __init__(self, sc, rng, layout, lang):
        self.sc = sc
        self.rng = rng
        self.layout = layout
        self.lang = lang
        self.Lx = L10N[lang]
        self.P = dict(sc.pieces)
        self.files = {}
        self.included = []          # (piece, lines) before document-level dressing
        self.ip_redacted = False
        self.user_redacted = False
        self.hidden_hosts = set()
        self.text_for_check = []
        self.note_files = set()

    # ------------------------------------------------------------------ prose
    def say(self, key, **kw):
        rng = self.rng
        Lx = self.Lx
        if key.startswith("piece."):
            pool = Lx["piece"].get(key[6:]) or L10N["en"]["piece"][key[6:]]
        else:
            pool = Lx.get(key) or L10N["en"][key]
        s = rng.choice(pool)
        try:
            return s.format(**kw)
        except (KeyError, IndexError):
            return s

    def intro(self):
        sc, w, rng = self.sc, self.sc.w, self.rng
        kw = dict(model=rng.choice(MODELS), launcher=rng.choice(LAUNCH.get(sc.stack, ["torchrun"])).format(
            N=w.nnodes, G=w.gpn, W=w.world, script=w.script), N=w.nnodes, G=w.gpn, W=w.world, gpu=w.gpu[0].replace("NVIDIA ", ""),
            dur=dur_text(max(60, sc.t_fault - w.t0), self.lang))
        key = "intro"
        if sc.healthy:
            key = "intro_healthy"
        elif sc.cause == "straggler":
            key = "intro_slow"
        hello = self.say("hello")
        body = self.say(key, **kw)
        return (hello + " " + body).strip() if hello and not hello.endswith(",") else (hello + "\n\n" + body if hello else body)

    def piece_intro(self, p):
        sc, w = self.sc, self.sc.w
        host = w.hosts[p.node].name if p.node is not None else (w.hosts[sc.cnode].name if sc.cnode is not None else w.hosts[0].name)
        kind = p.kind
        if kind == "console":
            kind = "console_node" if p.node is not None else "console"
            if kind == "console_node" and sc.stack == "k8s" and self.lang == "en":
                kind = "console_pod"
        if kind == "hint":
            return None
        if kind not in ("console", "console_node", "console_pod", "rankfile", "summary", "kernel", "smi", "analysis", "k8s", "tails", "misc"):
            kind = "misc"
        s = self.say("piece." + kind, host=host, k=p.node if p.node is not None else 0, r=p.rank if p.rank is not None else 0,
                     jobid=w.job_id)
        if kind in ("kernel", "smi") and host not in s:
            s = s.rstrip(":") + f" ({host}):"
        if kind == "analysis" and p.title and self.rng.random() < 0.5:
            s = p.title + ":"
        return s

    # ------------------------------------------------------------------ selection
    def select(self):
        sc, rng, P = self.sc, self.rng, self.P
        w = sc.w
        order = []
        cands = []
        if "console" in P:
            cands += ["console"] * 3
        if "console_n0" in P:
            cands += ["console_n0"] * 3
        if "rank0" in P:
            cands += ["rank0"] * 3
        hide = set(getattr(sc, "hidden_pieces", ()))
        if sc.culprit is not None and f"rank{sc.culprit}" in P and f"rank{sc.culprit}" not in hide:
            cands += [f"rank{sc.culprit}"] * 2
        if sc.cnode is not None and f"console_n{sc.cnode}" in P:
            cands += [f"console_n{sc.cnode}"] * 2
        if "summary" in P:
            cands += ["summary"]
        if self.layout == "tailcat":
            cands = ["tails"]
        primary = rng.choice(cands) if cands else "rank0"
        order.append(primary)
        if rng.random() < 0.35:
            more = [x for x in P if x.startswith(("console", "rank")) and x not in order and x not in hide]
            if more:
                order.append(rng.choice(more))
        if "summary" in P and "summary" not in order and P[primary].kind == "rankfile" if primary in P else False:
            if rng.random() < 0.5:
                order.append("summary")
        for grp in sc.required:
            # only material that really carries the evidence counts
            avail = [g for g in grp if g == "tails" or (g in P and (P[g].has_key() or P[g].kind == "hint"))]
            if any(g in order for g in avail):
                continue
            if not avail:
                import sys
                print(f"blind6: warning: no evidence piece available for group {grp} ({sc.cause}, {sc.stack}, "
                      f"{getattr(sc, 'variant', '')})", file=sys.stderr)
                continue
            # follow-ups a user adds after being asked
            pref = [g for g in avail if g.startswith(("dmesg", "smi", "fr", "pyspy", "hint", "k8s", "ibstat", "fmlog", "tails"))]
            pick = rng.choice(pref) if pref and rng.random() < 0.7 else rng.choice(avail)
            order.append(pick)
        for x in getattr(self, "forced", []):
            if x in P and x not in order:
                order.append(x)
        # extra material: other kernel logs, nvidia-smi, ...
        extras = [x for x in P if x not in order and (x.startswith(("dmesg", "smi", "nvl", "ibstat", "fmlog", "k8s")))]
        for x in extras:
            if rng.random() < 0.35:
                order.append(x)
        # rank 0 is the usual first thing people paste
        return order

    def tails_piece(self, n_lines=None):
        sc, rng, w = self.sc, self.rng, self.sc.w
        if w.world <= 16:
            ranks = list(range(w.world))
        else:
            ranks = sorted(set([0, w.world - 1] + [r for r in sc.culprits() if r is not None][:4] +
                               rng.sample(range(w.world), 6)))
        n_lines = n_lines or rng.choice([15, 20, 30, 40, 50])
        nm = rng.choice(["logs/rank{r}.log", "rank_{r}.log", f"{w.script.split('.')[0]}-{w.job_id}-{{r}}.out", "out/worker_{r}.txt",
                         "std_log_process_{r}.txt" if sc.stack == "azureml" else "logs/rank{r}.log"])
        lines = []
        if rng.random() < 0.5:
            lines.append((f"$ tail -n {n_lines} " + nm.replace("{r}", "*").replace("_*.", "*."), False))
        culprits = set(sc.culprits()) if sc.culprit is not None else set()
        for r in ranks:
            rl = T.join_cr(sc.rank_file(r), "file")
            rl = T.keep_tail(rl, n_lines)
            head_key = (r in culprits and sc.cause in ("hang", "straggler", "collective_mismatch", "data_loader_stall")) \
                or any(k for _, k in rl)
            lines.append((f"==> {nm.format(r=r)} <==", head_key and r == sc.truth_rank))
            lines += rl
            lines.append(("", False))
        p = Piece("tails", "tails", lines, title="tail of all rank logs")
        return p

    # ------------------------------------------------------------------ piece dressing
    def dress(self, p, mode="paste"):
        rng = self.rng
        lines = list(p.lines)
        lines = T.join_cr(lines, "file" if mode == "file" else ("terminal" if rng.random() < 0.6 else "file"))
        if mode == "file":
            return lines
        if p.kind in ("console", "rankfile") and rng.random() < 0.12:
            lines = [(T.strip_ts(t), k) for t, k in lines]
        if p.kind in ("console", "rankfile", "kernel") and len(lines) > 60 and rng.random() < 0.7:
            lines = T.keep_tail(lines, rng.randint(30, 120))
        if p.kind in ("console", "rankfile", "tails") and rng.random() < 0.3:
            marker = self.say("snip", n="{n}")
            lines = T.elide(lines, rng, marker)
        om = getattr(p, "omitted", 0)
        if om and rng.random() < 0.7:
            lines.append((self.say("same", last=self.sc.w.world - 1), False))
        if p.kind in ("console",) and rng.random() < 0.15:
            lines = [(t.lstrip(), k) for t, k in lines]
        if p.kind == "kernel" and self.lang in JOURNAL_MONTHS and rng.random() < 0.6:
            # journalctl / syslog under the user's locale
            loc = JOURNAL_MONTHS[self.lang]
            en = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
            lines = [(re.sub(r"^(%s) " % "|".join(en), lambda m: loc[en.index(m.group(1))] + " ", t), k) for t, k in lines]
        return lines

    # ------------------------------------------------------------------ rank evidence
    def rank_evident(self):
        sc = self.sc
        r = sc.truth_rank
        if r is None or not sc.rank_inferable:
            return False
        w = sc.w
        pats = rank_patterns(r)
        for p, lines in self.included:
            if p.rank == r and any(k is True for _, k in lines):
                return True
            for t, k in lines:
                if k and any(x.search(t) for x in pats):
                    return True
        if getattr(sc, "node_level", False) and sc.truth_node is not None:
            host = w.hosts[sc.truth_node].name
            x = sc.truth_rank
            for p, lines in self.included:
                blob = "\n".join(t for t, _ in lines)
                if p.node == sc.truth_node or host in blob:
                    if re.search(rf"\[rank{x}\]|rank\s+:\s*{x} \(|^\s*{x}: |\[1,{x}\]|mpirank:{x},|\brank {x} nranks", blob, re.M):
                        return True
        return False

    # ------------------------------------------------------------------ block assembly
    def blocks(self):
        """Returns list of blocks: ('prose', str) / ('code', piece, lines) / ('file', name, piece, lines)."""
        sc, rng = self.sc, self.rng
        order = self.select()
        B = [("prose", self.intro())]
        attach_mode = self.layout in ("attach", "gist") or (self.layout == "issue" and rng.random() < 0.35)
        n_att = 0
        for name in order:
            if name == "tails":
                p = self.tails_piece()
            elif name in self.P:
                p = self.P[name]
            else:
                continue
            if p.kind == "hint":
                B.append(("prose", p.lines[0][0]))
                self.included.append((p, p.lines))
                continue
            as_file = attach_mode and p.kind in ("console", "rankfile", "kernel") and rng.random() < 0.6
            if as_file:
                lines = self.dress(p, "file")
                fname = self.file_name(p)
                B.append(("prose", rng.choice(self.Lx["attached"]) + f" ({fname})" if rng.random() < 0.5 else f"see {fname}"))
                B.append(("file", fname, p, lines))
                self.included.append((p, lines))
                n_att += 1
                # people often paste an excerpt as well
                if rng.random() < 0.4:
                    ex = self.dress(p)
                    ex = T.keep_tail(ex, rng.randint(8, 25))
                    B.append(("prose", self.piece_intro(p)))
                    B.append(("code", p, ex))
                continue
            lines = self.dress(p)
            intro = self.piece_intro(p)
            if intro:
                B.append(("prose", intro))
            B.append(("code", p, lines))
            self.included.append((p, lines))
            if rng.random() < 0.08:
                B.append(("code", p, lines))  # pasted twice by accident
        if rng.random() < 0.5:
            B.append(("prose", self.say("theory")))
        return B

    def file_name(self, p):
        sc, rng, w = self.sc, self.rng, self.sc.w
        if p.fname:
            base = p.fname
            if p.node is not None and rng.random() < 0.7:
                stem, _, ext = base.rpartition(".")
                base = f"{stem}-{w.hosts[p.node].short}.{ext}"
            return base
        if p.kind == "rankfile":
            pat = rng.choice(["rank{r}.log", "rank_{r}.txt", "log_rank{r}.txt", "worker{r}.log",
                              "std_log_process_{r}.txt" if sc.stack == "azureml" else "rank{r}.out"])
            fn = pat.format(r=p.rank)
            if rng.random() < 0.25:
                fn += ".gz"
            return fn
        if p.kind == "console":
            if p.node is None:
                return rng.choice([f"slurm-{w.job_id}.out", "output.log", "job.log", "train.log", "stdout.txt"])
            return rng.choice([f"node{p.node}.txt", f"{w.hosts[p.node].short}.log", f"node_{p.node}_stderr.log"])
        if p.kind == "kernel":
            return f"dmesg-{w.hosts[p.node].short}.txt" if p.node is not None else "dmesg.txt"
        return f"{p.name}.txt"

    # ------------------------------------------------------------------ document-level dressing
    def fence(self):
        return self.rng.choice(FENCES)

    def code_text(self, lines, style):
        rng = self.rng
        txt = [t for t, _ in lines]
        return txt

    def render(self):
        """Produce files {name: bytes}."""
        lay = self.layout
        fn = getattr(self, "render_" + lay)
        B = self.blocks()
        main_name, main_text = fn(B)
        self.post_redact(B)
        self.files[main_name] = main_text
        for b in B:
            if b[0] == "file":
                self.files[b[1]] = self.file_bytes(b[1], b[2], b[3])
        return self.files

    def post_redact(self, B):
        pass

    def file_bytes(self, name, p, lines):
        rng, sc = self.rng, self.sc
        text = "\n".join(t for t, _ in lines) + "\n"
        if self.ip_redacted:
            text = T.redact_ips(text, self.ip_style)
        data = text.encode("utf-8", "surrogatepass")
        # a process that died mid-write leaves garbage / NULs and a truncated last line
        if p.kind == "rankfile" and p.rank in (sc.culprits() if sc.culprit is not None else []) and \
                sc.cause in ("crash_signal", "host_oom_kill", "gpu_hardware") and rng.random() < 0.6:
            cut = data.rstrip(b"\n")
            if rng.random() < 0.5:
                cut = cut + b"\x00" * rng.randint(16, 4096)
            else:
                cut = cut + bytes(rng.getrandbits(8) for _ in range(rng.randint(20, 300)))
            data = cut
        elif rng.random() < 0.1:
            data = data.rstrip(b"\n")
            data = data[:-rng.randint(1, 30)] if len(data) > 200 and not lines[-1][1] else data
        if name.endswith(".gz"):
            data = gzip.compress(data, compresslevel=6, mtime=0)
        return data

    # ------------------------------------------------------------------ helpers for layouts
    def join_code(self, lines, width=None, at_space=False):
        if width:
            lines = T.hard_wrap(lines, width, at_space)
        return "\n".join(t for t, _ in lines)

    def apply_redactions(self, text):
        rng, sc = self.rng, self.sc
        if self.user_redacted:
            text = T.redact_user(text, sc.w.user, self.user_repl)
        if self.ip_redacted:
            text = T.redact_ips(text, self.ip_style)
        return text

    def choose_redactions(self):
        rng, sc = self.rng, self.sc
        if rng.random() < 0.3:
            self.user_redacted = True
            self.user_repl = rng.choice(["<user>", "USER", "xxx", "$USER", "<redacted>"])
        # IPs may be redacted unless the node identity hangs on them
        if rng.random() < 0.25:
            self.ip_redacted = True
            self.ip_style = rng.choice(["x", "partial", "tag"])

    # ------------------------------------------------------------------ layouts
    def md_blocks(self, B, fence=True, indent=False, width=None):
        rng = self.rng
        out = []
        fs = self.fence()
        for b in B:
            if b[0] == "prose":
                out.append(b[1])
                out.append("")
            elif b[0] == "code":
                body = self.join_code(b[2], width)
                if indent:
                    out.append("\n".join("    " + x for x in body.split("\n")))
                elif fence:
                    close = "~~~" if fs.startswith("~~~") else "```"
                    out.append(fs)
                    out.append(body)
                    out.append(close)
                else:
                    out.append(body)
                out.append("")
            elif b[0] == "file":
                pass
        return "\n".join(out)

    def collect_env(self):
        sc, w, rng = self.sc, self.sc.w, self.rng
        cu = rng.choice(["12.1", "12.4", "11.8", "12.6"])
        lines = [f"PyTorch version: {w.torch}+cu{cu.replace('.', '')}", "Is debug build: False", f"CUDA used to build PyTorch: {cu}",
                 "ROCM used to build PyTorch: N/A", "", f"OS: {rng.choice(['Ubuntu 22.04.4 LTS (x86_64)', 'Rocky Linux 8.9 (Green Obsidian) (x86_64)', 'Ubuntu 20.04.6 LTS (x86_64)', 'Red Hat Enterprise Linux 9.4 (Plow) (x86_64)'])}",
                 f"Python version: {w.pyver}.{rng.randint(4, 14)} (main, {rng.choice(['Nov 20 2023', 'Jun  6 2024', 'Feb  4 2025'])}, 15:14:05) [GCC 11.4.0] (64-bit runtime)",
                 "Is CUDA available: True", "GPU models and configuration: "]
        for g in range(w.gpn):
            lines.append(f"GPU {g}: {w.gpu[0]}")
        lines += ["", f"Nvidia driver version: {w.driver}", "", "Versions of relevant libraries:",
                  f"[pip3] numpy=={rng.choice(['1.24.4', '1.26.4', '2.1.3'])}", f"[pip3] torch=={w.torch}",
                  f"[pip3] triton=={rng.choice(['2.1.0', '2.3.1', '3.0.0', '3.1.0'])}",
                  f"[pip3] nvidia-nccl-cu12=={w.nccl}"]
        return lines

    def render_issue(self, B):
        rng, sc = self.rng, self.sc
        self.choose_redactions()
        title = rng.choice(["NCCL timeout in multi-node training", "Training crashes after a few hours",
                            "[distributed] job dies with watchdog timeout", "ProcessGroupNCCL error on multi node",
                            "Random crash during training", "Job hangs then gets killed", "Is this a hardware problem?",
                            "Help: distributed training failure"])
        head = [f"# {title}", "", rng.choice(["### 🐛 Describe the bug", "**Describe the bug**", "## Bug", "### Describe the bug"]), ""]
        body = self.md_blocks(B, width=rng.choice([None, None, None, 120]))
        env = "\n".join(self.collect_env()) if rng.random() < 0.6 else ""
        tail = ["", rng.choice(["### Versions", "**Environment**", "## Environment"]), ""]
        if env:
            tail += ["```", env, "```"]
        else:
            tail += [f"torch {sc.w.torch}, NCCL {sc.w.nccl}, driver {sc.w.driver}"]
        text = "\n".join(head) + body + "\n".join(tail) + "\n"
        text = self.apply_redactions(text)
        if rng.random() < 0.3:
            text = text.replace("\n", "\r\n")
        return rng.choice(["issue.md", "ISSUE.md", "bug_report.md"]), text.encode("utf-8")

    def render_forum(self, B):
        rng, sc = self.rng, self.sc
        self.choose_redactions()
        out = []
        user = rng.choice(["dl_newbie", "jmartin", "gpu_poor", "researcher42", "kwang", "m.rossi", "ML_Ops_Tom"])
        d = sc.w.local_dt(sc.t_end_job + rng.uniform(3600, 86400 * 3))
        out.append(rng.choice(["Distributed training crash", "NCCL error, please help", "Job killed after hours of training",
                               "Multi-node problem"]))
        out.append("")
        out.append(f"{user}\n{d.strftime('%B %d, %Y, %I:%M%p').replace(' 0', ' ')}")
        out.append("")
        entities = rng.random() < 0.6
        dedent = rng.random() < 0.4
        width = rng.choice([None, 80, 100, 110])
        for b in B:
            if b[0] == "prose":
                out.append(b[1])
                out.append("")
            elif b[0] == "code":
                lines = b[2]
                if dedent:
                    lines = [(t.lstrip(), k) for t, k in lines]
                body = self.join_code(lines, width, at_space=True)
                if entities:
                    body = T.html_escape(body, partial=rng.random() < 0.4, rng=rng)
                out.append(body)
                out.append("")
        if rng.random() < 0.5:
            # a reply that quotes part of the post
            helper = rng.choice(["ptrblck", "helper_bot", "alex_d", "nccl_fan"])
            out += ["", helper, "", "> " + B[0][1].split("\n")[0][:100], "",
                    rng.choice(["Could you post the output of all ranks?", "Check the other ranks, rank 0 usually only shows the timeout.",
                                "Is anything in dmesg?", "Which rank fails first?"]), ""]
        text = "\n".join(out) + "\n"
        text = self.apply_redactions(text)
        return rng.choice(["paste.txt", "forum_post.txt", "thread.txt"]), text.encode("utf-8")

    def render_email(self, B):
        rng, sc = self.rng, self.sc
        self.choose_redactions()
        w = sc.w
        d = w.local_dt(sc.t_end_job + rng.uniform(600, 86400))
        user = rng.choice(["alice.nguyen", "j.doe", "m.schmidt", "p.kowalski", "y.tanaka", "l.garcia"])
        dom = rng.choice(["uni-example.edu", "example.com", "lab.example.org"])
        inner = []
        for b in B:
            if b[0] == "prose":
                inner += self.wrap_prose(b[1], 72)
                inner.append("")
            elif b[0] == "code":
                inner += [t for t, _ in T.hard_wrap(b[2], rng.choice([76, 78, 80, 100]), at_space=rng.random() < 0.7)]
                inner.append("")
        quoted = rng.random() < 0.6
        out = [f"From: {user}@{dom}", f"To: hpc-support@{dom}", f"Date: {f_rfc2822(d)}",
               f"Subject: {rng.choice(['Re: ', 'RE: ', 'Fwd: ', ''])}[ticket #{rng.randint(10000, 99999)}] job {w.job_id} "
               f"{'- errors in the log?' if sc.healthy else ('is slow' if sc.cause == 'straggler' else 'failed')}", ""]
        if quoted:
            out += [rng.choice(["Hi,", "Hello,"]), "", rng.choice(["forwarding the user's report below, can you have a look?",
                                                                    "see below, the user sent the logs again.",
                                                                    "the user replied with the output you asked for."]), "",
                    f"On {f_rfc2822(d)}, {user} <{user}@{dom}> wrote:"]
            depth = rng.choice(["> ", "> ", ">> "])
            out += [(depth + x).rstrip() if x else depth.rstrip() for x in inner]
        else:
            out += inner
        out += ["", "--", user.replace(".", " ").title(), rng.choice(["PhD student", "Research Engineer", "ML Platform"])]
        text = "\n".join(out) + "\n"
        text = self.apply_redactions(text)
        text = text.replace("\n", "\r\n")
        return rng.choice(["email.txt", "message.eml", "ticket.txt"]), text.encode("utf-8")

    def wrap_prose(self, s, width):
        out = []
        for para in s.split("\n"):
            words = para.split(" ")
            line = ""
            for wd in words:
                if len(line) + len(wd) + 1 > width and line:
                    out.append(line)
                    line = wd
                else:
                    line = (line + " " + wd) if line else wd
            out.append(line)
        return out

    def render_chat(self, B):
        rng, sc = self.rng, self.sc
        self.choose_redactions()
        users = rng.sample(["alice", "bob", "chen.li", "devops-dan", "priya", "oleg", "sam (oncall)", "maria"], 2)
        t = sc.w.local_dt(sc.t_end_job + rng.uniform(300, 20000))
        out = []
        hh, mm = t.hour, t.minute

        def stamp():
            nonlocal hh, mm
            mm += rng.randint(0, 4)
            if mm >= 60:
                mm -= 60
                hh = (hh + 1) % 24
            if rng.random() < 0.5:
                return f"{(hh % 12) or 12}:{mm:02d} {'AM' if hh < 12 else 'PM'}"
            return f"[{hh:02d}:{mm:02d}]"

        first = True
        style = rng.choice(["slack", "discord", "teams"])
        for i, b in enumerate(B):
            who = users[0]
            if b[0] == "prose":
                if not first and rng.random() < 0.3:
                    out.append(f"{users[1]}  {stamp()}" if style == "slack" else f"{stamp()} {users[1]}: ")
                    out.append(rng.choice(["which node?", "can you check dmesg on that node?", "anything before that?",
                                           "what does rank 0 say?", "can you paste the rest?", "👀"]))
                    out.append("")
                if style == "slack":
                    out.append(f"{who}  {stamp()}")
                    out.append(b[1])
                elif style == "discord":
                    out.append(f"{who} — {stamp()}")
                    out.append(b[1])
                else:
                    out.append(f"{who} {stamp()}")
                    out.append(b[1])
                first = False
            elif b[0] == "code":
                body = self.join_code(b[2], rng.choice([None, 120]))
                out.append("```")
                out.append(body)
                out.append("```")
            out.append("")
        text = "\n".join(out) + "\n"
        text = self.apply_redactions(text)
        return rng.choice(["chat.txt", "slack_thread.txt", "discord.txt"]), text.encode("utf-8")

    def render_tailcat(self, B):
        rng = self.rng
        self.choose_redactions()
        out = []
        hints = {p.lines[0][0] for p, _ in self.included if p.kind == "hint"}
        for b in B:
            if b[0] == "prose":
                if rng.random() < 0.5 or b[1] in hints:
                    out.append(b[1])
                    out.append("")
            elif b[0] == "code":
                out.append(self.join_code(b[2]))
                out.append("")
        text = "\n".join(out) + "\n"
        text = self.apply_redactions(text)
        return rng.choice(["output.txt", "tails.txt", "log.txt"]), text.encode("utf-8")

    def render_screen(self, B):
        rng, sc = self.rng, self.sc
        w = sc.w
        self.choose_redactions()
        width = rng.choice([120, 132, 160, 200, 238])
        kind = rng.choice(["tmux", "typescript", "less", "plain"])
        codes = [b for b in B if b[0] == "code"]
        out = []
        prose = [b[1] for b in B if b[0] == "prose"]
        host = w.hosts[0].short
        if kind == "typescript":
            d = w.local_dt(sc.t_train)
            out.append(f'Script started on {d.strftime("%Y-%m-%d %H:%M:%S")}+00:00 [TERM="xterm-256color" TTY="/dev/pts/{rng.randint(0, 9)}" '
                       f'COLUMNS="{width}" LINES="{rng.randint(40, 70)}"]')
            prompt = f"\x1b]0;{w.user}@{host}: ~\x07\x1b[?2004h\x1b[01;32m{w.user}@{host}\x1b[00m:\x1b[01;34m~\x1b[00m$ "
            out.append(prompt + f"\x1b[?2004l\r")
        for i, b in enumerate(codes):
            lines = b[2]
            pc = b[1]
            if kind in ("tmux", "plain", "typescript") and len(lines) > 50:
                lines = T.keep_tail(lines, rng.randint(30, 60))
            if i > 0 or pc.kind not in ("console", "rankfile", "tails", "summary"):
                ph = w.hosts[pc.node].short if pc.node is not None else host
                cmd = {"kernel": rng.choice(["sudo dmesg -T | tail -n 40", "dmesg | grep -iE 'xid|nvrm|mlx5|oom|error' ",
                                             "journalctl -k --since '-2h' --no-pager | tail"]),
                       "smi": rng.choice(["nvidia-smi", "nvidia-smi -q | less"]),
                       "rankfile": f"tail -n 40 logs/rank{pc.rank}.log",
                       "console": f"tail -n 80 slurm-{w.job_id}.out" if sc.stack.startswith("slurm") else "tail -n 80 train.log",
                       "k8s": "kubectl get pods", "analysis": "cat dump.txt"}.get(pc.kind, "cat notes.txt")
                if pc.lines and pc.lines[0][0].startswith("$ "):
                    cmd = pc.lines[0][0][2:]
                    lines = lines[1:] if lines and lines[0][0].startswith("$ ") else lines
                pr = f"[{w.user}@{ph} ~]$ " if rng.random() < 0.5 else f"{w.user}@{ph}:~$ "
                out.append(pr + cmd)
            wrapped = T.hard_wrap(lines, width)
            for t, k in wrapped:
                if kind == "typescript":
                    t = T.colorize(t) + "\r"
                out.append(t)
            if kind == "less":
                out.append(f"{pc.fname or 'log'} lines {rng.randint(1000, 3000)}-{rng.randint(3001, 3100)}/{rng.randint(3100, 3200)} (END)")
        if kind == "tmux":
            d = w.local_dt(sc.t_end_job + 60)
            status = f"[train] 0:bash  1:python*{' ' * max(1, width - 60)}\"{host}\" {d.strftime('%H:%M %d-%b-%y')}"
            out.append(status)
        if kind == "typescript":
            prompt = f"\x1b]0;{w.user}@{host}: ~\x07\x1b[?2004h\x1b[01;32m{w.user}@{host}\x1b[00m:\x1b[01;34m~\x1b[00m$ "
            out.append(prompt + "exit\r")
            out.append("\x1b[?2004l\rexit\r")
            d = w.local_dt(sc.t_end_job + 120)
            out.append(f'\nScript done on {d.strftime("%Y-%m-%d %H:%M:%S")}+00:00 [COMMAND_EXIT_CODE="1"]')
        text = "\n".join(out) + "\n"
        text = self.apply_redactions(text)
        name = "typescript" if kind == "typescript" else rng.choice(["screen.txt", "terminal.txt", "log.txt"])
        # the question goes in a separate note
        note = "\n\n".join(p for p in prose if p)
        nn = rng.choice(["README.txt", "note.md", "question.txt"])
        self.note_files.add(nn)
        self.files[nn] = (note + "\n").encode("utf-8")
        return name, text.encode("utf-8", "surrogatepass")

    def render_ocr(self, B):
        rng, sc = self.rng, self.sc
        w = sc.w
        protect = set()
        for h in w.hosts:
            protect.update([h.name, h.short])
        if sc.truth_rank is not None:
            protect.update([f"rank{sc.truth_rank}", f"[rank{sc.truth_rank}]", f"Rank {sc.truth_rank}"])
        protect.update(["Xid", "NVRM", "SXid", "OOM", "oom", "ECC", "NVLink", "Killed", "SIGSEGV", "Segmentation", "Signal",
                        "mismatch", "DataLoader", "OutOfMemoryError", "illegal", "PREEMPTION", "TIME", "LIMIT"])
        rate = rng.choice([0.02, 0.04, 0.07])
        out = []
        note = []
        for b in B:
            if b[0] == "prose":
                note.append(b[1])
            elif b[0] == "code":
                out.append(rng.choice(["--- screenshot 1 ---", "[image.png]", "(text from screenshot)", ""]))
                lines = T.keep_tail(b[2], rng.randint(25, 60))
                wrapped = T.hard_wrap(lines, rng.choice([90, 110, 140]))
                for t, k in wrapped:
                    out.append(T.ocr(t, rng, protect, rate=rate * (0.5 if k else 1.0)))
        self.files["message.txt"] = ("\n\n".join(note) + "\n").encode("utf-8")
        self.note_files.add("message.txt")
        return rng.choice(["ocr.txt", "screenshot_text.txt"]), ("\n".join(out) + "\n").encode("utf-8")

    def render_attach(self, B):
        rng, sc = self.rng, self.sc
        self.choose_redactions()
        body = self.md_blocks(B, fence=rng.random() < 0.7)
        text = self.apply_redactions(body)
        if rng.random() < 0.3:
            self.files[rng.choice(["stdout.log", f"rank{rng.randrange(sc.w.world)}.err", "nvidia-smi.txt"])] = b""
        return rng.choice(["ticket.md", "README.md", "description.txt"]), (text + "\n").encode("utf-8")

    def render_gist(self, B):
        rng, sc = self.rng, self.sc
        self.choose_redactions()
        note = [b[1] for b in B if b[0] == "prose"]
        i = 0
        for b in B:
            if b[0] == "code":
                i += 1
                p = b[1]
                nm = f"{i:02d}_{self.file_name(p).replace('.gz', '')}"
                txt = self.apply_redactions(self.join_code(b[2])) + "\n"
                self.files[nm] = txt.encode("utf-8")
        self.note_files.add("README.md")
        return "README.md", ("\n\n".join(note) + "\n").encode("utf-8")

    def render_jira(self, B):
        rng, sc = self.rng, self.sc
        self.choose_redactions()
        out = [f"h2. {rng.choice(['Training job failure', 'Job crash on cluster', 'GPU job died'])}", "",
               f"*Job ID:* {sc.w.job_id}", f"*Nodes:* {sc.w.nnodes}", ""]
        for b in B:
            if b[0] == "prose":
                out.append(b[1])
                out.append("")
            elif b[0] == "code":
                tag = rng.choice(["{code}", "{noformat}", "{code:bash}"])
                end = "{noformat}" if tag == "{noformat}" else "{code}"
                out.append(tag)
                out.append(self.join_code(b[2]))
                out.append(end)
                out.append("")
        text = self.apply_redactions("\n".join(out) + "\n")
        return "ticket.txt", text.encode("utf-8")

    def render_so(self, B):
        rng, sc = self.rng, self.sc
        self.choose_redactions()
        out = []
        for b in B:
            if b[0] == "prose":
                out.append(b[1])
                out.append("")
            elif b[0] == "code":
                body = self.join_code(b[2], rng.choice([None, 100]))
                if rng.random() < 0.5:
                    body = T.html_escape(body)
                out.append("\n".join("    " + x for x in body.split("\n")))
                out.append("")
        out.append(rng.choice(["python pytorch distributed nccl", "pytorch deep-learning multi-gpu", "slurm pytorch"]))
        text = self.apply_redactions("\n".join(out) + "\n")
        return "question.md", text.encode("utf-8")

    def render_attempts(self, B):
        """Several attempts of the same job pasted one after another.

        self.prior: earlier attempts [(intro, lines)] (shown before the truth run);
        self.after: a later attempt the user says to ignore (first_is_real mode)."""
        rng, sc = self.rng, self.sc
        self.choose_redactions()
        out = []
        prior = getattr(self, "prior", [])
        after = getattr(self, "after", [])
        lead = [b for b in B if b[0] == "prose"][:1]
        if lead:
            out.append(lead[0][1])
            out.append("")
        for i, (intro, lines) in enumerate(prior):
            out.append(intro)
            out.append(self.fence().replace("~~~", "```"))
            out.append("\n".join(t for t, _ in lines))
            out.append("```")
            out.append("")
        if prior:
            out.append(self.say("last_attempt_ok" if sc.healthy else "last_attempt"))
            out.append("")
        for b in B[1:]:
            if b[0] == "prose":
                out.append(b[1])
            elif b[0] == "code":
                out.append("```")
                out.append(self.join_code(b[2]))
                out.append("```")
            out.append("")
        for intro, lines in after:
            out.append(intro)
            out.append("```")
            out.append("\n".join(t for t, _ in lines))
            out.append("```")
            out.append("")
        if after:
            out.append(self.say("first_is_real"))
        text = self.apply_redactions("\n".join(out) + "\n")
        return rng.choice(["log.txt", "attempts.txt", "paste.txt"]), text.encode("utf-8")
