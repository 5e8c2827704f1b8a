"""Text dressing: what happens to logs on their way into an issue, a forum, a chat."""
import re

TS_PATTERNS = [
    re.compile(r"^\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[,.]\d+\] "),                  # [2024-12-01 12:00:00,123]
    re.compile(r"^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d+)?(?:Z|[+-]\d\d:?\d\d)? "),  # 2024-12-01 12:00:00,123
    re.compile(r"^\[\s*\d+\.\d{6}\] "),                                              # [12345.678901]
    re.compile(r"^\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}\] "),
    re.compile(r"^\w{3} [ \d]\d \d\d:\d\d:\d\d \S+ kernel: "),
    re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ \d+ \S+\] "),                         # glog
]


def strip_ts(line):
    for p in TS_PATTERNS:
        m = p.match(line)
        if m:
            return line[m.end():]
    return line


def join_cr(lines, mode):
    """tqdm '\\r' lines: in a file they pile up on one physical line; a terminal shows the last."""
    out = []
    for text, key in lines:
        if text.startswith("\r") and out and (out[-1][0].startswith("\r") or out[-1][0].startswith(" ") or "\r" in out[-1][0]):
            if mode == "file":
                out[-1] = (out[-1][0] + text, out[-1][1] or key)
            else:
                out[-1] = (text, out[-1][1] or key)
        else:
            out.append((text, key))
    if mode != "file":
        out = [(t.split("\r")[-1] if "\r" in t else t, k) for t, k in out]
    return out


def hard_wrap(lines, width, at_space=False):
    out = []
    for text, key in lines:
        if len(text) <= width:
            out.append((text, key))
            continue
        rest = text
        while len(rest) > width:
            cut = width
            if at_space:
                sp = rest.rfind(" ", int(width * 0.6), width)
                if sp > 0:
                    cut = sp + 1
            out.append((rest[:cut].rstrip(" ") if at_space else rest[:cut], key))
            rest = rest[cut:]
        if rest:
            out.append((rest, key))
    return out


def elide(lines, rng, marker):
    """Replace a run of non-key lines in the middle by the user's marker."""
    n = len(lines)
    if n < 12:
        return lines
    for _ in range(12):
        a = rng.randint(2, max(3, n // 2))
        b = min(n - 3, a + rng.randint(4, max(5, n // 2)))
        if b <= a:
            continue
        if not any(k for _, k in lines[a:b]):
            cnt = b - a
            m = marker.replace("{n}", str(cnt))
            return lines[:a] + [(m, False)] + lines[b:]
    return lines


def keep_tail(lines, n):
    if len(lines) <= n:
        return lines
    keys = [i for i, (_, k) in enumerate(lines) if k]
    start = len(lines) - n
    if keys and keys[0] < start:
        start = keys[0]
    return lines[start:]


HTML = [("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"), ("'", "&#39;")]


def html_escape(text, partial=False, rng=None):
    if partial and rng is not None:
        subs = rng.sample(HTML[1:], rng.randint(1, 4))
    else:
        subs = HTML
    if ("&", "&amp;") in subs:
        text = text.replace("&", "&amp;")
    for a, b in subs:
        if a != "&":
            text = text.replace(a, b)
    return text


IP_RE = re.compile(r"\b(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\b")


def redact_ips(text, style):
    if style == "x":
        return IP_RE.sub("xxx.xxx.xxx.xxx", text)
    if style == "partial":
        return IP_RE.sub(lambda m: f"{m.group(1)}.{m.group(2)}.x.x", text)
    return IP_RE.sub("<ip>", text)


def redact_user(text, user, repl):
    text = text.replace(f"/home/{user}/", f"/home/{repl}/").replace(f"/scratch/{user}/", f"/scratch/{repl}/")
    text = text.replace(f"/lustre/fs1/{user}/", f"/lustre/fs1/{repl}/").replace(f"/gpfs/projects/ai/{user}/", f"/gpfs/projects/ai/{repl}/")
    return text


OCR_SUBS = [("l", "1"), ("I", "l"), ("O", "0"), ("rn", "m"), ("_", " "), ("0", "O"), (".", ","), ("S", "5"),
            ("cl", "d"), ("e", "c"), ("'", "`"), ("|", "l"), ("1", "l")]


def ocr(text, rng, protect=(), rate=0.04):
    """Apply OCR slips to words that are not protected tokens."""
    out = []
    for tok in re.split(r"(\s+)", text):
        if not tok or tok.isspace() or any(p and p in tok for p in protect) or rng.random() > rate * 3:
            out.append(tok)
            continue
        a, b = rng.choice(OCR_SUBS)
        if a in tok:
            i = tok.find(a)
            tok = tok[:i] + b + tok[i + len(a):]
        out.append(tok)
    return "".join(out)


ANSI = {"red": "\x1b[31m", "yellow": "\x1b[33m", "green": "\x1b[32m", "bold": "\x1b[1m", "reset": "\x1b[0m",
        "dim": "\x1b[2m", "cyan": "\x1b[36m", "boldred": "\x1b[1;31m"}


def colorize(text):
    low = text.lower()
    if "error" in low or "traceback" in low or " warn " in low or "exception" in low:
        c = ANSI["red"] if "warn" not in low else ANSI["yellow"]
        return c + text + ANSI["reset"]
    if "warning" in low:
        return ANSI["yellow"] + text + ANSI["reset"]
    return text
