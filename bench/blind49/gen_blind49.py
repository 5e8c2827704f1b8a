#!/usr/bin/env python3
"""blind49 - synthetic log bundles of failed / healthy distributed GPU training jobs
run on machines with a non-English system locale, or whose logs went through awkward
encodings (UTF-16 with BOM, GBK, Shift-JIS, CP1251, UTF-8 BOM, mojibake, CRLF).

Written blind (without reading the diagnosis tool, its rules, tests, docs or corpus).
Standard library only.  Usage:
    python3 gen_blind49.py --out DIR --n 60 --seed S
"""
import argparse
import datetime as dt
import json
import os
import random
import sys

CAUSES = ["gpu_hardware", "ecc_memory", "nvlink", "network", "cuda_oom",
          "illegal_memory_access", "python_exception", "host_oom_kill", "crash_signal",
          "preemption", "hang", "data_loader_stall", "collective_mismatch", "straggler",
          "unknown"]
ALL = list(CAUSES)

INF = float("inf")

# --------------------------------------------------------------------------------------
# locale tables
# --------------------------------------------------------------------------------------
LOC = {
    "zh": dict(
        a=["一", "二", "三", "四", "五", "六", "日"],
        A=["星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期日"],
        b=["%d月" % i for i in range(1, 13)],
        sig={"SIGSEGV": "段错误", "SIGKILL": "已杀死", "SIGBUS": "总线错误",
             "SIGABRT": "已放弃", "SIGTERM": "已终止"},
        core=["(核心已转储)"],
        line="第 %d 行：",
        tz="CST",
        pydate="%Y年%m月%d日 %H:%M:%S",
        comments=["# 这里开始报错了", "# 前面都正常，跑了好几个小时", "# 不知道为什么突然挂了",
                  "# 下面是另一台机器的输出", "# 中间省略了一些重复的行", "# 这个警告一直都有，应该没关系",
                  "（以下为截取）", "# 重跑了两次都是这样", "# 管理员说节点没问题？"],
        healthy_note="训练正常结束，只是想确认一下日志里这些报错要不要紧。",
        fail_note="训练跑到一半就挂了，麻烦帮忙看一下是什么原因。",
        slow_note="训练没有报错，但是比上周慢了很多，是不是哪台机器有问题？",
        done="训练完成", start="开始训练",
    ),
    "de": dict(
        a=["Mo", "Di", "Mi", "Do", "Fr", "Sa", "So"],
        A=["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"],
        b=["Jan", "Feb", "Mär", "Apr", "Mai", "Jun", "Jul", "Aug", "Sep", "Okt", "Nov", "Dez"],
        sig={"SIGSEGV": "Speicherzugriffsfehler", "SIGKILL": "Getötet",
             "SIGBUS": "Bus-Zugriffsfehler", "SIGABRT": "Abgebrochen", "SIGTERM": "Beendet"},
        core=["(Speicherabzug geschrieben)"],
        line="Zeile %d:",
        tz="CET",
        pydate="%d.%m.%Y %H:%M:%S",
        comments=["# ab hier geht es schief", "# vorher lief alles stundenlang normal",
                  "# Ausgabe vom zweiten Knoten", "# (gekürzt, viele gleiche Zeilen)",
                  "# diese Warnung kommt immer, ist wohl harmlos", "# zweimal neu gestartet, gleiches Ergebnis",
                  "# Admin meint, die Knoten sind ok?"],
        healthy_note="Training lief durch, aber im Log stehen ein paar beunruhigende Meldungen.",
        fail_note="Das Training ist mittendrin abgestürzt, könnt ihr euch das bitte ansehen?",
        slow_note="Kein Fehler, aber das Training ist viel langsamer als letzte Woche.",
        done="Training abgeschlossen", start="Starte Training",
    ),
    "fr": dict(
        a=["lun.", "mar.", "mer.", "jeu.", "ven.", "sam.", "dim."],
        A=["lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche"],
        b=["janv.", "févr.", "mars", "avril", "mai", "juin", "juil.", "août", "sept.",
           "oct.", "nov.", "déc."],
        sig={"SIGSEGV": "Erreur de segmentation", "SIGKILL": "Processus arrêté",
             "SIGBUS": "Erreur du bus", "SIGABRT": "Abandon", "SIGTERM": "Complété"},
        core=["(core dumped)"],
        line="ligne %d :",
        tz="CET",
        pydate="%d/%m/%Y %H:%M:%S",
        comments=["# ici ça plante", "# avant ça tournait depuis des heures sans problème",
                  "# sortie du deuxième nœud", "# (coupé, beaucoup de lignes répétées)",
                  "# cet avertissement apparaît toujours, a priori sans gravité",
                  "# relancé deux fois, même résultat", "# l'admin dit que les nœuds sont OK ?"],
        healthy_note="L'entraînement s'est terminé normalement, mais certains messages m'inquiètent.",
        fail_note="Le job a planté en plein entraînement, pouvez-vous regarder pourquoi ?",
        slow_note="Pas d'erreur, mais l'entraînement est beaucoup plus lent que la semaine dernière.",
        done="Entraînement terminé", start="Début de l'entraînement",
    ),
    "ru": dict(
        a=["Пн", "Вт", "Ср", "Чт", "Пт", "Сб", "Вс"],
        A=["понедельник", "вторник", "среда", "четверг", "пятница", "суббота", "воскресенье"],
        b=["янв", "фев", "мар", "апр", "мая", "июн", "июл", "авг", "сен", "окт", "ноя", "дек"],
        sig={"SIGSEGV": "Ошибка сегментирования", "SIGKILL": "Убито",
             "SIGBUS": "Ошибка шины", "SIGABRT": "Аварийный останов", "SIGTERM": "Завершено"},
        core=["(стек памяти сброшен на диск)", "(образ памяти сброшен на диск)"],
        line="строка %d:",
        tz="MSK",
        pydate="%d.%m.%Y %H:%M:%S",
        comments=["# вот тут всё и упало", "# до этого несколько часов всё было нормально",
                  "# вывод со второго узла", "# (обрезано, много одинаковых строк)",
                  "# это предупреждение было всегда, вроде безобидное",
                  "# перезапускал два раза - то же самое", "# админ говорит, что узлы в порядке?"],
        healthy_note="Обучение завершилось нормально, но в логе есть пугающие строки.",
        fail_note="Обучение упало посередине, посмотрите пожалуйста, в чём причина.",
        slow_note="Ошибок нет, но обучение идёт намного медленнее, чем на прошлой неделе.",
        done="Обучение завершено", start="Начало обучения",
    ),
    "es": dict(
        a=["lun", "mar", "mié", "jue", "vie", "sáb", "dom"],
        A=["lunes", "martes", "miércoles", "jueves", "viernes", "sábado", "domingo"],
        b=["ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic"],
        sig={"SIGSEGV": "Violación de segmento", "SIGKILL": "Terminado (killed)",
             "SIGBUS": "Error del bus", "SIGABRT": "Abortado", "SIGTERM": "Terminado"},
        core=["(`core' generado)"],
        line="línea %d:",
        tz="CET",
        pydate="%d/%m/%Y %H:%M:%S",
        comments=["# aquí empieza a fallar", "# antes iba bien durante horas",
                  "# salida del segundo nodo", "# (recortado, muchas líneas repetidas)",
                  "# este aviso sale siempre, creo que no importa",
                  "# lo relancé dos veces, mismo resultado", "# el admin dice que los nodos están bien?"],
        healthy_note="El entrenamiento terminó bien, pero hay mensajes en el log que me preocupan.",
        fail_note="El trabajo se cayó a mitad del entrenamiento, ¿podéis mirar por qué?",
        slow_note="No hay error, pero el entrenamiento va mucho más lento que la semana pasada.",
        done="Entrenamiento terminado", start="Comenzando entrenamiento",
    ),
    "ja": dict(
        a=["月", "火", "水", "木", "金", "土", "日"],
        A=["月曜日", "火曜日", "水曜日", "木曜日", "金曜日", "土曜日", "日曜日"],
        b=["%2d月" % i for i in range(1, 13)],
        sig={"SIGSEGV": "セグメンテーション違反です", "SIGKILL": "強制終了",
             "SIGBUS": "バスエラーです", "SIGABRT": "中止", "SIGTERM": "終了しました"},
        core=["(コアダンプ)"],
        line="行 %d:",
        tz="JST",
        pydate="%Y/%m/%d %H:%M:%S",
        comments=["# ここから落ちています", "# それまでは数時間問題なく動いていました",
                  "# 2台目のノードの出力", "# （同じ行が続くので省略）",
                  "# この警告はいつも出ているので関係ないと思います",
                  "# 2回再実行しましたが同じ結果です", "# 管理者はノードに問題ないと言っています"],
        healthy_note="学習は正常に終了しましたが、ログに気になるメッセージがあります。",
        fail_note="学習の途中で落ちました。原因を見ていただけますか。",
        slow_note="エラーは出ていませんが、先週より学習がかなり遅くなっています。",
        done="学習完了", start="学習開始",
    ),
}

EN_SIG = {"SIGSEGV": "Segmentation fault", "SIGKILL": "Killed", "SIGBUS": "Bus error",
          "SIGABRT": "Aborted", "SIGTERM": "Terminated"}
SIGNUM = {"SIGSEGV": 11, "SIGKILL": 9, "SIGBUS": 7, "SIGABRT": 6, "SIGTERM": 15, "SIGINT": 2}
CORE_SIGS = ("SIGSEGV", "SIGBUS", "SIGABRT")


def ldate(lc, t):
    """`date` banner in the given locale."""
    L = LOC[lc]
    wd = t.weekday()
    hms = t.strftime("%H:%M:%S")
    tz = L["tz"]
    if tz == "CET" and 4 <= t.month <= 10:
        tz = "CEST"
    L = dict(L, tz=tz)
    if lc == "zh":
        return "%d年 %02d月 %02d日 %s %s %s" % (t.year, t.month, t.day, L["A"][wd], hms, L["tz"])
    if lc == "ja":
        return "%d年 %2d月 %2d日 %s %s %s" % (t.year, t.month, t.day, L["A"][wd], hms, L["tz"])
    if lc == "de":
        return "%s %d. %s %s %s %d" % (L["a"][wd], t.day, L["b"][t.month - 1], hms, L["tz"], t.year)
    return "%s %02d %s %d %s %s" % (L["a"][wd], t.day, L["b"][t.month - 1], t.year, hms, L["tz"])


def ldmesg(lc, t):
    L = LOC[lc]
    return "[%s %s %2d %s %d]" % (L["a"][t.weekday()], L["b"][t.month - 1], t.day,
                                  t.strftime("%H:%M:%S"), t.year)


def ljournal(lc, t):
    L = LOC[lc]
    return "%s %02d %s" % (L["b"][t.month - 1], t.day, t.strftime("%H:%M:%S"))


def shell_msg(lc, rng, script, lineno, pid, sig, cmd):
    L = LOC[lc] if lc != "en" else None
    if L is None:
        name = EN_SIG[sig]
        core = "(core dumped)" if sig in CORE_SIGS else ""
        return "%s: line %d: %6d %-24s%s %s" % (script, lineno, pid, name, core, cmd)
    name = L["sig"][sig]
    core = rng.choice(L["core"]) if sig in CORE_SIGS else ""
    return "%s: %s %6d %s  %s %s" % (script, L["line"] % lineno, pid, name, core, cmd)


def shell_interactive(lc, rng, sig):
    if lc == "en":
        return EN_SIG[sig] + (" (core dumped)" if sig in CORE_SIGS else "")
    L = LOC[lc]
    return L["sig"][sig] + ((" " + rng.choice(L["core"])) if sig in CORE_SIGS else "")


# --------------------------------------------------------------------------------------
# timestamp helpers
# --------------------------------------------------------------------------------------
def T(job, t, host=None):
    """absolute datetime of job-relative second t as seen by host's clock."""
    sk = job["skew"].get(host, 0.0) if host else 0.0
    return job["t0"] + dt.timedelta(seconds=t + sk)


def glog(job, t, host, lvl="E", src="ProcessGroupNCCL.cpp:616", tid=None, rankpfx=None):
    d = T(job, t, host)
    if job["torch_new"]:
        s = "[%s%d%02d %s.%09d %s] " % (lvl, d.month, d.day, d.strftime("%H:%M:%S"),
                                         d.microsecond * 1000 + (int(t * 7919) % 1000), src)
        if rankpfx is not None:
            s = "[rank%d]:" % rankpfx + s
        return s
    return "[%s %s] " % (lvl, src)


def pylog(job, t, host):
    d = T(job, t, host)
    return d.strftime("%Y-%m-%d %H:%M:%S") + ",%03d" % (d.microsecond // 1000)


def elog(job, t, host, lvl, src):
    d = T(job, t, host)
    return "%s%02d%02d %s.%06d %d %s] " % (lvl, d.month, d.day, d.strftime("%H:%M:%S"),
                                          d.microsecond, job["agent_tid"].get(host, 4242), src)


# --------------------------------------------------------------------------------------
# job model
# --------------------------------------------------------------------------------------
HOST_PREFIX = {"zh": ["gpu", "node", "ai-a100-", "dgx"], "de": ["knoten", "gpu", "rechner"],
               "fr": ["r6i", "jean-gpu", "n"], "ru": ["gpu", "ml-node-", "srv"],
               "es": ["nodo", "gpu", "mn5-acc-"], "ja": ["gpu", "node", "ws"],
               "win": ["DESKTOP-", "WS-"]}


def make_job(rng, lc, nodes_choices, gpn_choices, gpu_model=None):
    nn = rng.choice(nodes_choices)
    gpn = rng.choice(gpn_choices)
    pfx = rng.choice(HOST_PREFIX[lc])
    start = rng.randint(1, 60)
    hosts = ["%s%02d" % (pfx, start + i * rng.choice([1, 1, 2])) for i in range(nn)]
    # strictly increasing and unique
    for i in range(1, nn):
        if hosts[i] <= hosts[i - 1]:
            hosts[i] = "%s%02d" % (pfx, start + i)
    t0 = dt.datetime(rng.choice([2025, 2026]), rng.randint(1, 12), rng.randint(1, 28),
                     rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59),
                     rng.randint(0, 999999))
    skew = {}
    for i, h in enumerate(hosts):
        skew[h] = 0.0 if i == 0 else round(rng.uniform(-50, 50), 3)
    world = nn * gpn
    pids = {}
    base = {h: rng.randint(3000, 240000) for h in hosts}
    nxt = {}
    for r in range(world):
        h = hosts[r // gpn]
        nxt[h] = nxt.get(h, base[h] + 2) + rng.choice([1, 1, 1, 2, 3])
        pids[r] = nxt[h]
    gpu = gpu_model or rng.choice(["NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3",
                                   "NVIDIA A800-SXM4-80GB", "NVIDIA H800"])
    buses = rng.choice([["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"],
                        ["07", "0f", "47", "4e", "87", "90", "b7", "bd"],
                        ["1b", "1c", "3d", "3e", "b1", "b2", "da", "db"]])
    job = dict(hosts=hosts, gpn=gpn, world=world, t0=t0, skew=skew, pids=pids,
               agent_pid={h: base[h] for h in hosts}, agent_tid={h: rng.randint(1000, 999999) for h in hosts},
               gpu=gpu, buses=buses[:max(gpn, 1)] if gpn <= 8 else buses, lc=lc,
               port=rng.choice([29500, 29500, 29501, 12355, 23456, 6000]),
               torch_new=rng.random() < 0.7, nccl=rng.choice(["2.18.5", "2.19.3", "2.20.5", "2.21.5"]),
               torchv=rng.choice(["2.1.2", "2.2.1", "2.3.1", "2.4.1", "2.5.1"]),
               nccl_debug=rng.random() < 0.45, jobid=rng.randint(100000, 9999999),
               py=rng.choice(["3.10", "3.11"]),
               steps=rng.choice([2000, 5000, 10000, 20000, 50000]),
               step_dt=round(rng.uniform(0.35, 2.8), 3),
               model=rng.choice(["llama-7b", "qwen2-1.5b", "gpt2-xl", "vit-huge", "bert-large", "mistral-7b"]),
               conda=rng.choice(["/opt/conda", "/home/%s/miniconda3/envs/train" % rng.choice(["zhang", "mueller", "dupont", "ivanov", "garcia", "tanaka"]), "/usr"]),
               ip={h: "10.%d.%d.%d" % (rng.randint(0, 9), rng.randint(0, 250), 10 + i) for i, h in enumerate(hosts)},
               timing_log=rng.random() < 0.35)
    if not job["torch_new"]:
        job["torchv"] = rng.choice(["1.13.1", "2.0.1"])
    return job


def host_of(job, r):
    return job["hosts"][r // job["gpn"]]


def local_of(job, r):
    return r % job["gpn"]


def pci(job, r):
    return "0000:%s:00" % job["buses"][local_of(job, r) % len(job["buses"])]


# --------------------------------------------------------------------------------------
# text builders (English: Python / torch / NCCL / kernel messages are not localized)
# --------------------------------------------------------------------------------------
def py_tb(job, frames, exc):
    site = "%s/lib/python%s/site-packages" % (job["conda"], job["py"])
    out = ["Traceback (most recent call last):"]
    for f, ln, fn, code in frames:
        f = f.replace("{site}", site)
        out.append('  File "%s", line %d, in %s' % (f, ln, fn))
        if code:
            out.append("    " + code)
    out.extend(exc.split("\n"))
    return out


TRAIN_FRAMES = [
    ("/workspace/train.py", 412, "<module>", "main(args)"),
    ("/workspace/train.py", 377, "main", "train_one_epoch(model, loader, optimizer, scaler, epoch, args)"),
]


def watchdog_lines(job, t, host, r, seq, op, numel, timeout_ms=600000):
    ran = timeout_ms + random.Random("%s%d%d" % (host, r, seq)).randint(3, 90)
    pg = "[PG 0 (default_pg) Rank %d]" % r if job["torchv"] >= "2.4" else "[PG 0 Rank %d]" % r
    work = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, numel, timeout_ms)
    if not job["torch_new"]:
        return [
            "[E ProcessGroupNCCL.cpp:475] [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (r, work, ran),
            "[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
            "[E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.",
            "[E ProcessGroupNCCL.cpp:916] [Rank %d] NCCL watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (r, r, work, ran),
            "terminate called after throwing an instance of 'std::runtime_error'",
            "  what():  [Rank %d] NCCL watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (r, r, work, ran),
        ]
    g = lambda dtt, src: glog(job, t + dtt, host, "E", src, rankpfx=r)
    return [
        g(0, "ProcessGroupNCCL.cpp:616") + "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (r, work, ran),
        g(0.001, "ProcessGroupNCCL.cpp:1785") + "%s Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg, seq, seq, seq - 1),
        g(0.001, "ProcessGroupNCCL.cpp:630") + "%s Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % pg,
        g(0.001, "ProcessGroupNCCL.cpp:636") + "%s To avoid data inconsistency, we are taking the entire process down." % pg,
        g(0.002, "ProcessGroupNCCL.cpp:1595") + "%s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (pg, r, work, ran),
        "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 (most recent call first):",
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f%010x in %s/lib/python%s/site-packages/torch/lib/libc10.so)" % (0x3a2b4c5d6e + r, job["conda"], job["py"]),
        "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x7f%010x in %s/lib/python%s/site-packages/torch/lib/libtorch_cuda.so)" % (0x1b2c3d4e5f + r, job["conda"], job["py"]),
        "frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x7f%010x in %s/lib/python%s/site-packages/torch/lib/libtorch_cuda.so)" % (0x1b2c3d5a6b + r, job["conda"], job["py"]),
        "frame #3: <unknown function> + 0xdc253 (0x7f%010x in /lib/x86_64-linux-gnu/libstdc++.so.6)" % (0x4c5d6e7f80 + r),
        "frame #4: <unknown function> + 0x94ac3 (0x7f%010x in /lib/x86_64-linux-gnu/libc.so.6)" % (0x4d5e6f7081 + r),
        "",
        "terminate called after throwing an instance of 'c10::DistBackendError'",
        "  what():  %s Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (pg, r, work, ran),
    ]


def nccl_remote_err(job, r, peer_host, rng, kind="socket"):
    v = job["nccl"]
    if kind == "ib":
        last = "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s" % (
            job["ip"][peer_host], rng.randint(30000, 60000), job["ip"][host_of(job, r)], job["ip"][peer_host])
        kindtxt = "remote process exited or there was a network error"
        code = "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."
    else:
        last = "socketProgress: Connection closed by remote peer %s<%d>" % (peer_host, rng.randint(30000, 60000))
        kindtxt = "remote process exited or there was a network error"
        code = "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely."
    if rng.random() < 0.5:
        last = "socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (job["ip"][peer_host], rng.randint(30000, 60000))
    frames = TRAIN_FRAMES + [
        ("/workspace/train.py", 214, "train_one_epoch", "scaler.scale(loss).backward()"),
        ("{site}/torch/_tensor.py", 521, "backward", "torch.autograd.backward("),
        ("{site}/torch/autograd/__init__.py", 289, "backward", "_engine_run_backward("),
        ("{site}/torch/nn/parallel/distributed.py", 1370, "_sync", None),
    ]
    return py_tb(job, frames,
                 "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, %s, NCCL version %s\n%s \nLast error:\n%s" % (kindtxt, v, code, last))


def nccl_info_lines(job, r, rng):
    h = host_of(job, r)
    out = []
    if r == 0:
        out.append("%s:%d:%d [0] NCCL INFO Bootstrap : Using %s:%s<0>" % (h, job["pids"][r], job["pids"][r], rng.choice(["ib0", "eth0", "bond0", "enp94s0f0"]), job["ip"][h]))
        out.append("%s:%d:%d [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation" % (h, job["pids"][r], job["pids"][r]))
        out.append("NCCL version %s+cuda12.%d" % (job["nccl"], rng.randint(1, 4)))
    p = job["pids"][r]
    lr = local_of(job, r)
    out.append("%s:%d:%d [%d] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ; OOB ib0:%s<0>" % (h, p, p + 40, lr, job["ip"][h]))
    out.append("%s:%d:%d [%d] NCCL INFO Using network IB" % (h, p, p + 40, lr))
    out.append("%s:%d:%d [%d] NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%x - Init START" % (
        h, p, p + 40, lr, 0x55d0a0000000 + r * 4096, r, job["world"], lr, lr, job["buses"][lr % len(job["buses"])], 0x8f3a11c2d4e5f607))
    out.append("%s:%d:%d [%d] NCCL INFO Channel 00/0 : %d[%d] -> %d[%d] via P2P/CUMEM/read" % (h, p, p + 40, lr, r, lr, (r + 1) % job["world"], (lr + 1) % job["gpn"]))
    out.append("%s:%d:%d [%d] NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%x - Init COMPLETE" % (
        h, p, p + 40, lr, 0x55d0a0000000 + r * 4096, r, job["world"], lr, lr, job["buses"][lr % len(job["buses"])], 0x8f3a11c2d4e5f607))
    return out


NOISE_WARN = [
    "{site}/torch/utils/data/dataloader.py:558: UserWarning: This DataLoader will create 16 worker processes in total. Our suggested max number of worker in current system is 12, which is smaller than what this DataLoader is going to create. Please be aware that excessive worker creation might get DataLoader running slow or even freeze, lower the worker number to avoid potential slowness/freeze if necessary.",
    "{site}/torch/nn/modules/module.py:1511: FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.",
    "{site}/transformers/tokenization_utils_base.py:1601: FutureWarning: `clean_up_tokenization_spaces` was not set. It will be set to `True` by default. This behavior will be depracted in transformers v4.45, and will be then set to `False` by default.",
    "{site}/torch/distributed/fsdp/_init_utils.py:440: UserWarning: FSDP is switching to use `NO_SHARD` instead of ShardingStrategy.FULL_SHARD since the world size is 1.",
    "[W socket.cpp:464] [c10d] The server socket has failed to bind to [::]:{port} (errno: 98 - Address already in use).",
    "[W Utils.hpp:133] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarInt)",
    "{site}/torch/functional.py:507: UserWarning: torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument. (Triggered internally at ../aten/src/ATen/native/TensorShape.cpp:3549.)",
    "wandb: WARNING Path /workspace/wandb/ wasn't writable, using system temp directory.",
    "[W ProcessGroupNCCL.cpp:1856] Warning: NCCL_AVOID_RECORD_STREAMS=1 has no effect for point-to-point collectives. (function operator())",
]


def tqdm_bar(step, total, rate, elapsed):
    frac = step / float(total)
    n = int(frac * 20)
    bar = "█" * n + ("▍" if n < 20 else "") + " " * max(0, 19 - n)
    mm, ss = divmod(int(elapsed), 60)
    hh, mm = divmod(mm, 60)
    el = "%d:%02d:%02d" % (hh, mm, ss) if hh else "%02d:%02d" % (mm, ss)
    left = (total - step) / max(rate, 0.01)
    lm, ls = divmod(int(left), 60)
    lh, lm = divmod(lm, 60)
    lt = "%d:%02d:%02d" % (lh, lm, ls) if lh else "%02d:%02d" % (lm, ls)
    return "Epoch 0: %3d%%|%s| %d/%d [%s<%s, %.2fit/s]" % (int(frac * 100), bar[:20], step, total, el, lt, rate)


def base_stream(job, r, rng, t_stop, sc):
    """Normal training output for rank r until job-relative time t_stop."""
    h = host_of(job, r)
    site = "%s/lib/python%s/site-packages" % (job["conda"], job["py"])
    out = []
    t = rng.uniform(2, 6)
    lc = job["lc"]
    pyd = LOC[lc]["pydate"] if lc in LOC and job.get("local_pydate") else None

    def ts(tt):
        if pyd:
            return T(job, tt, h).strftime(pyd)
        return pylog(job, tt, h)

    if r == 0:
        out.append((t, "%s - INFO - %s: model=%s world_size=%d nodes=%d" % (ts(t), LOC[lc]["start"] if lc in LOC else "start", job["model"], job["world"], len(job["hosts"]))))
    out.append((t + 0.1 * local_of(job, r), "%s - INFO - [rank %d] initialized process group (backend=nccl, local_rank=%d, host=%s)" % (ts(t), r, local_of(job, r), h)))
    if rng.random() < 0.6:
        w = rng.choice(NOISE_WARN).replace("{site}", site).replace("{port}", str(job["port"]))
        out.append((t + 0.3, w))
        if w.startswith(site):
            out.append((t + 0.3, "  warnings.warn("))
    if job["nccl_debug"] and (r == 0 or rng.random() < 0.3):
        for ln in nccl_info_lines(job, r, rng):
            out.append((t + 1.0, ln))
    t += rng.uniform(20, 90)
    step = 0
    slow = sc.get("slow", {})
    per = job["step_dt"]
    every = rng.choice([10, 20, 50, 100])
    span = min(t_stop, 1e6) - t
    while span / (per * every * max(slow.get(r, 1.0), 1.0)) > 140:
        every = {10: 20, 20: 50, 50: 100}.get(every, every * 2)
    loss = rng.uniform(6.5, 10.5)
    n_lines = 0
    while True:
        fmax = max(list(slow.values()) + [1.0])
        dtt = per * every * fmax
        if t + dtt > t_stop or step + every > job["steps"]:
            break
        t += dtt
        step += every
        loss = max(0.8, loss * rng.uniform(0.985, 1.0005))
        n_lines += 1
        if r == 0:
            if rng.random() < 0.5:
                out.append((t, tqdm_bar(step, job["steps"], 1.0 / (per * fmax), t)))
            else:
                out.append((t, "%s - INFO - step %d/%d loss %.4f lr %.2e grad_norm %.3f %.2fs/it" % (
                    ts(t), step, job["steps"], loss, 3e-4 * min(1, step / 2000.0), rng.uniform(0.3, 2.5), dtt / every)))
        if job["timing_log"] and (step // every) % 5 == 0:
            it = per * fmax * rng.uniform(0.99, 1.02)
            comp = per * 0.9 * slow.get(r, 1.0) * rng.uniform(0.97, 1.03)
            out.append((t + 0.01 * r, "[rank%d] step %d: iter %.3fs (data %.3fs, fwd %.3fs, bwd %.3fs, allreduce_wait %.3fs)" % (
                r, step, it, per * 0.04, comp * 0.34, comp * 0.66, max(0.004, it - comp - per * 0.04))))
    sc.setdefault("last_step", {})[r] = step
    return out


# --------------------------------------------------------------------------------------
# scenarios: what happens (independent of launcher); launchers add their own reactions
# --------------------------------------------------------------------------------------
def kern(sc, job, host, t, msg):
    sc["kernel"].setdefault(host, []).append((t, msg))


def add_tail(sc, r, t, lines):
    sc["tails"].setdefault(r, []).extend((t, ln) for ln in lines)


def set_exit(sc, r, t, kind, val):
    sc["exits"][r] = (t, kind, val)


def collateral(job, sc, rng, t_event, init, seq, op="ALLREDUCE", numel=None, remote_kind="socket", skip=()):
    """Every other rank: stuck in the collective -> watchdog (t+600s) -> SIGABRT,
    or sees a remote NCCL error quickly and exits 1."""
    numel = numel or rng.choice([1048576, 26214400, 67108864, 131072])
    ih = host_of(job, init) if init is not None else job["hosts"][0]
    mode = sc.get("coll_mode") or rng.choice(["watchdog", "watchdog", "remote"])
    for r in range(job["world"]):
        if r == init or r in skip:
            continue
        if mode == "remote" and host_of(job, r) != ih:
            t = t_event + rng.uniform(0.5, 8)
            add_tail(sc, r, t, nccl_remote_err(job, r, ih, rng, remote_kind))
            set_exit(sc, r, t + 0.5, "code", 1)
        else:
            t = t_event + 600 + rng.uniform(0.05, 4.0)
            add_tail(sc, r, t, watchdog_lines(job, t, host_of(job, r), r, seq, op, numel))
            set_exit(sc, r, t + 0.2, "sig", "SIGABRT")


def scenario(job, cause, rng, caps):
    W = job["world"]
    sc = dict(tails={}, exits={}, kernel={}, sched=[], nvsmi={}, pyspy=None, notes="",
              init=None, t_fail=None, stop={}, slow={}, preempt=None, healthy=False, end=None)
    dur = rng.uniform(1800, 30000)
    tf = dur
    sc["t_fail"] = tf
    init = rng.randrange(W)
    if W > 1 and init == 0 and rng.random() < 0.6:
        init = rng.randrange(1, W)
    ih = host_of(job, init)
    seq = int(tf / job["step_dt"]) * rng.choice([3, 4, 6]) + rng.randint(1, 9)
    ipid = job["pids"][init]
    sc["init"] = {"rank": init, "node": ih}
    site = "%s/lib/python%s/site-packages" % (job["conda"], job["py"])

    if cause is None or cause == "straggler":
        sc["healthy"] = cause is None
        end = dur
        if cause == "straggler":
            f = rng.uniform(1.35, 2.6)
            sc["slow_all"] = 1.0
            sc["slow"] = {init: f}
            job["timing_log"] = True if rng.random() < 0.75 else job["timing_log"]
            why = rng.choice(["thermal", "power", "pcie", "cpu"])
            sc["straggler_why"] = why
            d = T(job, tf * 0.3, ih)
            if why == "thermal":
                sc["nvsmi"][ih] = nvsmi_perf(job, init, "thermal")
                kern(sc, job, ih, tf * 0.2, "NVRM: GPU at PCI:%s: GPU-%08x-1f2e-4d3c-8b7a-%012x" % (pci(job, init), rng.getrandbits(32), rng.getrandbits(48)))
            elif why == "power":
                sc["nvsmi"][ih] = nvsmi_perf(job, init, "power")
            elif why == "pcie":
                kern(sc, job, ih, tf * 0.1, "pcieport 0000:%s:01.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)" % job["buses"][local_of(job, init) % len(job["buses"])])
                kern(sc, job, ih, tf * 0.1, "pcieport 0000:%s:01.0:   device [8086:347a] error status/mask=00000001/00002000" % job["buses"][local_of(job, init) % len(job["buses"])])
                sc["nvsmi"][ih] = nvsmi_perf(job, init, "pcie")
                sc["init"] = {"rank": init if job["timing_log"] else None, "node": ih}
            else:
                kern(sc, job, ih, tf * 0.4, "perf: interrupt took too long (5012 > 4980), lowering kernel.perf_event_max_sample_rate to 39900")
                sc["init"] = {"rank": init if job["timing_log"] else None, "node": ih if job["timing_log"] else None}
                sc["nvsmi"][ih] = None
            if not job["timing_log"] and why in ("thermal", "power"):
                sc["init"] = {"rank": None, "node": ih}
            if sc["init"]["node"] is None:
                sc["init"] = None
            end = dur * 1.0
        fmax = max(list(sc["slow"].values()) + [1.0])
        job["steps"] = max(100, int(end / (job["step_dt"] * fmax) * 0.93) // 100 * 100)
        for r in range(W):
            set_exit(sc, r, end + rng.uniform(0, 3), "code", 0)
        sc["end"] = end
        sc["notes"] = "healthy run" if cause is None else "rank %d on %s persistently slower (%s); job completed slowly" % (init, ih, sc.get("straggler_why"))
        if cause is None:
            sc["init"] = None
            harmless_kernel(job, sc, rng)
        return sc

    if cause == "gpu_hardware":
        x = rng.choice(["79", "79", "119", "62", "120", "gsp"])
        tk = tf - rng.uniform(0.1, 3)
        if x == "79":
            kern(sc, job, ih, tk, "NVRM: Xid (PCI:%s): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus." % pci(job, init))
            kern(sc, job, ih, tk + 0.001, "NVRM: GPU %s.0: GPU has fallen off the bus." % pci(job, init))
            kern(sc, job, ih, tk + 0.002, "NVRM: A GPU crash dump has been created. If possible, please run")
            kern(sc, job, ih, tk + 0.002, "NVRM: nvidia-bug-report.sh as root to collect this data before")
            kern(sc, job, ih, tk + 0.002, "NVRM: the NVIDIA kernel module is unloaded.")
            sc["nvsmi"][ih] = "Unable to determine the device handle for GPU%s.0: Unknown Error\n" % pci(job, init).upper().replace("0000:", "00000000:")
        elif x in ("119", "gsp"):
            kern(sc, job, ih, tk, "NVRM: Xid (PCI:%s): 119, pid=%d, name=python, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20800a4c 0x4)." % (pci(job, init), ipid, local_of(job, init)))
            kern(sc, job, ih, tk + 0.01, "NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020800a4c 0x0000000000000004." % local_of(job, init))
            kern(sc, job, ih, tk + 6, "NVRM: Xid (PCI:%s): 119, pid=%d, name=python, Timeout after 6s of waiting for RPC response from GPU%d GSP! Expected function 10 (FREE) (0xa55a0040 0x0)." % (pci(job, init), ipid, local_of(job, init)))
            kern(sc, job, ih, tk + 6.1, "NVRM: Rate limiting GSP RPC error prints for GPU at PCI:%s (printing 1 of every 30).  The GPU likely needs to be reset." % pci(job, init))
        elif x == "62":
            kern(sc, job, ih, tk, "NVRM: Xid (PCI:%s): 62, pid=%d, name=python, 0000b0d4 00000000 00000000 00000000 00000000" % (pci(job, init), ipid))
        else:
            kern(sc, job, ih, tk, "NVRM: Xid (PCI:%s): 120, pid=%d, name=python, Ch 00000008, errorString CTX SWITCH TIMEOUT, Info 0x3c020" % (pci(job, init), ipid))
        kern(sc, job, ih, tk - rng.uniform(3000, 9000), "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.%d.%02d" % (rng.randint(100, 200), rng.randint(1, 12)))
        err = rng.choice(["unspecified launch failure", "an illegal instruction was encountered" if False else "unknown error", "unspecified launch failure"])
        if rng.random() < 0.7:
            lines = ["%s:%d:%d [%d] include/alloc.h:%d NCCL WARN Cuda failure '%s'" % (ih, ipid, ipid + 40, local_of(job, init), rng.randint(100, 200), err)] if rng.random() < 0.4 else []
            lines += py_tb(job, TRAIN_FRAMES + [("/workspace/train.py", 208, "train_one_epoch", "loss = model(batch)"),
                                                ("{site}/torch/nn/modules/module.py", 1553, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)")],
                           "RuntimeError: CUDA error: %s\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n" % err)
            add_tail(sc, init, tf, lines)
            set_exit(sc, init, tf + 1, "code", 1)
        else:
            # process stuck in the driver; never exits by itself
            set_exit(sc, init, INF, "stuck", None)
            sc["init"] = {"rank": None, "node": ih}
        collateral(job, sc, rng, tf, init, seq)
        sc["notes"] = "GPU on %s (local GPU %d, rank %d) failed: Xid %s" % (ih, local_of(job, init), init, x)

    elif cause == "ecc_memory":
        tk = tf - rng.uniform(0.05, 2)
        kern(sc, job, ih, tk, "NVRM: Xid (PCI:%s): 48, pid=%d, name=python, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (pci(job, init), ipid, rng.randint(0, 11), rng.randint(0, 1)))
        kern(sc, job, ih, tk + 0.2, "NVRM: Xid (PCI:%s): 63, pid=%d, name=python, Row Remapper: New row (0x%08x) marked for remapping, reset gpu to activate." % (pci(job, init), ipid, rng.getrandbits(28)))
        if rng.random() < 0.5:
            kern(sc, job, ih, tk + 0.3, "NVRM: Xid (PCI:%s): 64, pid=%d, name=python, Row Remapper Error: (0x%08x) - All reserved rows for bank are remapped" % (pci(job, init), ipid, rng.getrandbits(28)))
        sc["nvsmi"][ih] = nvsmi_ecc(job, init, rng)
        add_tail(sc, init, tf, py_tb(job, TRAIN_FRAMES + [("/workspace/train.py", 230, "train_one_epoch", "optimizer.step()")],
                                     "RuntimeError: CUDA error: uncorrectable ECC error encountered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"))
        set_exit(sc, init, tf + 1, "code", 1)
        collateral(job, sc, rng, tf, init, seq)
        sc["notes"] = "uncorrectable ECC (DBE, row remap) on %s GPU%d, rank %d" % (ih, local_of(job, init), init)

    elif cause == "nvlink":
        tk = tf - rng.uniform(0.05, 2)
        link = rng.randint(0, 17)
        peer = (init // job["gpn"]) * job["gpn"] + (local_of(job, init) ^ 1) % job["gpn"]
        kern(sc, job, ih, tk, "NVRM: Xid (PCI:%s): 74, pid=%d, name=python, NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % (pci(job, init), ipid, link))
        if rng.random() < 0.6:
            kern(sc, job, ih, tk + 0.001, "NVRM: Xid (PCI:%s): 74, pid=%d, name=python, NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % (pci(job, peer), job["pids"][peer], (link + 6) % 18))
        if rng.random() < 0.4:
            kern(sc, job, ih, tk - 0.5, "nvidia-nvswitch%d: SXid (PCI:0000:%02x:00.0): 20034, Fatal, Link %d LTSSM Fault Up" % (rng.randint(0, 3), rng.choice([0x84, 0x85, 0x86, 0x87]), rng.randint(0, 63)))
        lines = ["%s:%d:%d [%d] enqueue.cc:%d NCCL WARN Cuda failure 'uncorrectable NVLink error was detected during the execution'" % (ih, ipid, ipid + 40, local_of(job, init), rng.randint(1000, 1600))]
        lines += py_tb(job, TRAIN_FRAMES + [("/workspace/train.py", 214, "train_one_epoch", "scaler.scale(loss).backward()")],
                       "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2%03d, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version %s\nncclUnhandledCudaError: Call to CUDA function failed.\nLast error:\nCuda failure 'uncorrectable NVLink error was detected during the execution'" % (rng.randint(0, 999), job["nccl"]))
        add_tail(sc, init, tf, lines)
        set_exit(sc, init, tf + 1, "code", 1)
        collateral(job, sc, rng, tf, init, seq)
        sc["init"] = {"rank": None, "node": ih}
        sc["notes"] = "NVLink fatal error (Xid 74) on %s link %d" % (ih, link)

    elif cause == "network":
        if len(job["hosts"]) < 2:
            raise ValueError("network needs 2 nodes")
        tk = tf - rng.uniform(1, 20)
        kind = rng.choice(["ib", "ib", "eth"])
        if kind == "ib":
            dev = rng.choice(["mlx5_0", "mlx5_1", "mlx5_2"])
            kern(sc, job, ih, tk, "mlx5_core 0000:%02x:00.0: mlx5_port_module_event:1150:(pid 0): Port module event[error]: module 0, Cable error, High Temperature" % rng.randint(0x10, 0xe0))
            kern(sc, job, ih, tk + 0.1, "mlx5_core 0000:%02x:00.0 ib0: Link down" % rng.randint(0x10, 0xe0) if rng.random() < 0.5 else "mlx5_core 0000:%02x:00.0: %s:1:1 port state changed to DOWN" % (rng.randint(0x10, 0xe0), dev))
            remote = "ib"
            sc["notes"] = "InfiniBand link down on %s" % ih
        else:
            nic = rng.choice(["enp94s0f0", "eth0", "ens2f0np0"])
            kern(sc, job, ih, tk, "%s 0000:5e:00.0 %s: NIC Link is Down" % (rng.choice(["ice", "i40e", "bnxt_en", "mlx5_core"]), nic))
            kern(sc, job, ih, tk + 25, "%s 0000:5e:00.0 %s: NIC Link is Up, 100 Gbps Full Duplex, Flow Control: None" % (rng.choice(["ice", "i40e"]), nic))
            remote = "socket"
            sc["notes"] = "Ethernet NIC link flap on %s" % ih
        # every rank errors within seconds; ranks on the affected node see the local error
        sc["coll_mode"] = "remote"
        for r in range(W):
            t = tf + rng.uniform(0.2, 6) + (0 if host_of(job, r) == ih else rng.uniform(0.5, 4))
            if host_of(job, r) == ih:
                peer = job["hosts"][(job["hosts"].index(ih) + 1) % len(job["hosts"])]
            else:
                peer = ih
            lines = []
            if remote == "ib":
                lines.append("%s:%d:%d [%d] transport/net_ib.cc:%d NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:%s remoteGids::ffff:%s" % (
                    host_of(job, r), job["pids"][r], job["pids"][r] + 52, local_of(job, r), rng.randint(1600, 1800), job["ip"][peer], rng.randint(30000, 60000), job["ip"][host_of(job, r)], job["ip"][peer]))
                lines.append("%s:%d:%d [%d] NCCL INFO transport/net.cc:%d -> 6" % (host_of(job, r), job["pids"][r], job["pids"][r] + 52, local_of(job, r), rng.randint(1100, 1300)))
            lines += nccl_remote_err(job, r, peer, rng, remote)
            add_tail(sc, r, t, lines)
            set_exit(sc, r, t + 0.5, "code", 1)
        sc["init"] = {"rank": None, "node": ih}

    elif cause == "cuda_oom":
        tot = 79.15 if "80" in job["gpu"] or "H" in job["gpu"] else 39.39
        free = rng.uniform(0.05, 1.5)
        alloc = rng.choice([0.5, 1.0, 2.0, 3.91, 5.86, 7.81, 16.0])
        inuse = tot - free
        exc = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
               % (alloc, local_of(job, init), tot, free, inuse - 0.5, inuse - 2.1, rng.uniform(100, 1500)))
        if not job["torch_new"]:
            exc = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB (GPU %d; %.2f GiB total capacity; %.2f GiB already allocated; %.2f MiB free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF" % (
                alloc, local_of(job, init), tot, inuse - 2, free * 1024, inuse - 1)
        add_tail(sc, init, tf, py_tb(job, TRAIN_FRAMES + [("/workspace/train.py", 208, "train_one_epoch", "loss = model(batch)"),
                                                          ("{site}/torch/nn/modules/module.py", 1553, "_wrapped_call_impl", "return self._call_impl(*args, **kwargs)"),
                                                          ("{site}/torch/nn/functional.py", 3104, "cross_entropy", "return torch._C._nn.cross_entropy_loss(input, target, weight, _Reduction.get_enum(reduction), ignore_index, label_smoothing)")], exc))
        set_exit(sc, init, tf + 1, "code", 1)
        collateral(job, sc, rng, tf, init, seq)
        sc["notes"] = "CUDA OOM on rank %d (%s) - long sequence batch" % (init, ih)

    elif cause == "illegal_memory_access":
        v = rng.choice(["ima", "assert", "xid31"])
        if v == "assert":
            lines = []
            for k in range(rng.randint(2, 5)):
                lines.append("../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [%d,0,0], thread: [%d,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` failed." % (rng.randint(0, 4000), rng.randint(0, 127)))
            lines += py_tb(job, TRAIN_FRAMES + [("/workspace/model.py", 88, "forward", "x = self.embed(tokens)")],
                           "RuntimeError: CUDA error: device-side assert triggered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")
            kern(sc, job, ih, tf - 0.1, "NVRM: Xid (PCI:%s): 43, pid=%d, name=python, Ch 00000010" % (pci(job, init), ipid))
        else:
            lines = py_tb(job, TRAIN_FRAMES + [("/workspace/train.py", 221, "train_one_epoch", "loss_val = loss.item()")],
                          "RuntimeError: CUDA error: an illegal memory access was encountered\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n")
            if v == "xid31" or rng.random() < 0.5:
                kern(sc, job, ih, tf - 0.1, "NVRM: Xid (PCI:%s): 31, pid=%d, name=python, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_%d faulted @ 0x7f%02x_%08x. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ" % (pci(job, init), ipid, rng.randint(0, 15), rng.randint(0, 255), rng.getrandbits(32)))
        add_tail(sc, init, tf, lines)
        set_exit(sc, init, tf + 1, "code", 1)
        collateral(job, sc, rng, tf, init, seq)
        sc["notes"] = "illegal memory access / device assert on rank %d (%s)" % (init, ih)

    elif cause == "python_exception":
        v = rng.choice(["unicode", "fnf", "key", "value", "assert", "typeerr"])
        if v == "unicode":
            exc = "UnicodeDecodeError: 'utf-8' codec can't decode byte 0x%02x in position %d: invalid %s" % (rng.choice([0xb9, 0xd6, 0xc4, 0x82, 0xe9, 0xcf]), rng.randint(0, 5000), rng.choice(["start byte", "continuation byte"]))
            fr = [("/workspace/data/dataset.py", 57, "__getitem__", "text = f.read()"), ("/usr/lib/python%s/codecs.py" % job["py"], 322, "decode", "(result, consumed) = self._buffer_decode(data, self.errors, final)")]
        elif v == "fnf":
            p = rng.choice(["/data/数据集/shard_%05d.jsonl", "/mnt/daten/Trainingsdaten/shard_%05d.jsonl", "/data/données/shard_%05d.jsonl", "/data/данные/shard_%05d.jsonl", "/data/学習データ/shard_%05d.jsonl", "/data/datos_entrenamiento/shard_%05d.jsonl"]) % rng.randint(0, 9999)
            exc = "FileNotFoundError: [Errno 2] No such file or directory: '%s'" % p
            fr = [("/workspace/data/dataset.py", 44, "__getitem__", "with open(path, encoding='utf-8') as f:")]
        elif v == "key":
            exc = "KeyError: '%s'" % rng.choice(["input_ids", "label", "attention_mask", "image"])
            fr = [("/workspace/data/collate.py", 19, "collate_fn", "labels = torch.stack([b['label'] for b in batch])")]
        elif v == "value":
            exc = "ValueError: Expected input batch_size (%d) to match target batch_size (%d)." % (rng.choice([16, 32]), rng.choice([15, 31]))
            fr = [("/workspace/train.py", 209, "train_one_epoch", "loss = criterion(out, target)")]
        elif v == "assert":
            exc = "AssertionError: sequence length %d exceeds max_position_embeddings" % rng.randint(4097, 9000)
            fr = [("/workspace/model.py", 131, "forward", "assert T <= self.max_pos, f\"sequence length {T} exceeds max_position_embeddings\"")]
        else:
            exc = "TypeError: unsupported operand type(s) for +: 'NoneType' and 'Tensor'"
            fr = [("/workspace/train.py", 226, "train_one_epoch", "running_loss = running_loss + loss.detach()")]
        frames = list(TRAIN_FRAMES)
        if v in ("unicode", "fnf", "key"):
            frames += [("/workspace/train.py", 199, "train_one_epoch", "for step, batch in enumerate(loader):"),
                       ("{site}/torch/utils/data/dataloader.py", 630, "__next__", "data = self._next_data()"),
                       ("{site}/torch/utils/data/dataloader.py", 1344, "_next_data", "return self._process_data(data)"),
                       ("{site}/torch/utils/data/dataloader.py", 1370, "_process_data", "data.reraise()"),
                       ("{site}/torch/_utils.py", 706, "reraise", "raise exception")]
            inner = py_tb(job, [("{site}/torch/utils/data/_utils/worker.py", 308, "_worker_loop", "data = fetcher.fetch(index)"),
                                ("{site}/torch/utils/data/_utils/fetch.py", 51, "fetch", "data = [self.dataset[idx] for idx in possibly_batched_index]")] + fr, exc)
            exc = "%s: Caught %s in DataLoader worker process %d.\nOriginal %s" % (exc.split(":")[0], exc.split(":")[0], rng.randint(0, 7), "\n".join(inner))
            lines = py_tb(job, frames, exc)
        else:
            lines = py_tb(job, frames + fr, exc)
        add_tail(sc, init, tf, lines)
        set_exit(sc, init, tf + 1, "code", 1)
        collateral(job, sc, rng, tf, init, seq)
        sc["notes"] = "uncaught %s on rank %d (%s)" % (v, init, ih)

    elif cause == "host_oom_kill":
        cg = rng.random() < 0.5
        rss = rng.randint(60, 400) * 1024 * 1024
        kern(sc, job, ih, tf - 0.3, "python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0")
        kern(sc, job, ih, tf - 0.3, "CPU: %d PID: %d Comm: python Tainted: P           OE     5.15.0-%d-generic #%d-Ubuntu" % (rng.randint(0, 127), ipid + 30, rng.randint(80, 130), rng.randint(80, 140)))
        if cg:
            kern(sc, job, ih, tf - 0.2, "memory: usage %dkB, limit %dkB, failcnt %d" % (rss + 1000, rss + 1000, rng.randint(1, 900)))
            kern(sc, job, ih, tf - 0.1, "Memory cgroup out of memory: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (ipid, rss + 50000000, rss, rng.randint(50000, 300000), rng.randint(0, 200000), rng.randint(1000, 60000), rng.randint(100000, 900000)))
        else:
            kern(sc, job, ih, tf - 0.1, "Out of memory: Killed process %d (python) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:%d pgtables:%dkB oom_score_adj:0" % (ipid, rss + 50000000, rss, rng.randint(50000, 300000), rng.randint(0, 200000), rng.randint(1000, 60000), rng.randint(100000, 900000)))
        kern(sc, job, ih, tf + 0.4, "oom_reaper: reaped process %d (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB" % ipid)
        sc["cgroup_oom"] = cg
        set_exit(sc, init, tf, "sig", "SIGKILL")
        collateral(job, sc, rng, tf, init, seq)
        sc["notes"] = "host RAM exhausted on %s, OOM killer killed rank %d (pid %d)" % (ih, init, ipid)

    elif cause == "crash_signal":
        sig = rng.choice(["SIGSEGV", "SIGSEGV", "SIGABRT", "SIGBUS"])
        lines = []
        if sig == "SIGSEGV":
            if rng.random() < 0.6:
                lines += ["Fatal Python error: Segmentation fault", "",
                          "Thread 0x%012x (most recent call first):" % rng.getrandbits(44),
                          '  File "/usr/lib/python%s/threading.py", line 324 in wait' % job["py"],
                          '  File "/usr/lib/python%s/threading.py", line 607 in wait' % job["py"],
                          "", "Current thread 0x%012x (most recent call first):" % rng.getrandbits(44),
                          '  File "%s/lib/python%s/site-packages/flash_attn/flash_attn_interface.py", line 91 in _flash_attn_forward' % (job["conda"], job["py"]),
                          '  File "/workspace/model.py", line 142 in forward',
                          '  File "/workspace/train.py", line 208 in train_one_epoch',
                          '  File "/workspace/train.py", line 377 in main', '  File "/workspace/train.py", line 412 in <module>', ""]
            kern(sc, job, ih, tf, "python[%d]: segfault at %x ip %016x sp %016x error %d in %s[%x+%x]" % (
                ipid, rng.choice([0, 8, 0x18, rng.getrandbits(40)]), 0x7f0000000000 + rng.getrandbits(40), 0x7ff000000000 + rng.getrandbits(36), rng.choice([4, 6]),
                rng.choice(["libtorch_cpu.so", "_C.cpython-311-x86_64-linux-gnu.so", "libgomp-a34b3233.so.1", "libc.so.6"]), 0x7f0000000000 + (rng.getrandbits(28) << 12), rng.randint(0x10000, 0x9000000)))
        elif sig == "SIGABRT":
            lines += [rng.choice(["free(): invalid pointer", "double free or corruption (!prev)", "corrupted size vs. prev_size", "malloc(): unaligned tcache chunk detected"])]
        else:
            lines += ["Fatal Python error: Bus error", "", "Current thread 0x%012x (most recent call first):" % rng.getrandbits(44),
                      '  File "%s/lib/python%s/site-packages/numpy/core/memmap.py", line 268 in __getitem__' % (job["conda"], job["py"]),
                      '  File "/workspace/data/dataset.py", line 61 in __getitem__', ""]
            kern(sc, job, ih, tf, "python[%d]: potentially unexpected fatal signal 7." % ipid)
        add_tail(sc, init, tf, lines)
        set_exit(sc, init, tf + 0.1, "sig", sig)
        sc["crash_sig"] = sig
        collateral(job, sc, rng, tf, init, seq)
        sc["notes"] = "%s in rank %d (%s), no hardware evidence" % (sig, init, ih)

    elif cause == "preemption":
        sc["preempt"] = dict(t=tf, why=rng.choice(caps.get("preempt_kinds", ["TIME LIMIT", "PREEMPTION"])))
        sc["init"] = None
        sc["notes"] = "job terminated by scheduler/host: %s" % sc["preempt"]["why"]

    elif cause == "hang":
        # init stops making progress (deadlock in its own code), others block in the collective
        set_exit(sc, init, INF, "stuck", None)
        sc["pyspy"] = pyspy(job, init, rng, "hang")
        collateral(job, sc, rng, tf, init, seq, op=rng.choice(["ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE"]))
        sc["stall_all"] = tf
        sc["notes"] = "rank %d (%s) stopped progressing (stuck outside NCCL); others timed out in the collective" % (init, ih)

    elif cause == "data_loader_stall":
        set_exit(sc, init, INF, "stuck", None)
        v = rng.choice(["nfs", "nfs", "lustre", "timeout"])
        if v == "nfs":
            srv = rng.choice(["nas01", "fs-data", "storage2", "10.0.100.5"])
            kern(sc, job, ih, tf + 30, "nfs: server %s not responding, still trying" % srv)
            kern(sc, job, ih, tf + 245, "INFO: task python:%d blocked for more than 120 seconds." % (ipid + rng.randint(20, 200)))
            kern(sc, job, ih, tf + 245, "      Tainted: P           OE     5.15.0-105-generic #115-Ubuntu")
            kern(sc, job, ih, tf + 245, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.")
            kern(sc, job, ih, tf + 245, "task:python          state:D stack:0     pid:%d ppid:%d flags:0x00004002" % (ipid + rng.randint(20, 200), ipid))
            kern(sc, job, ih, tf + 245, " rpc_wait_bit_killable+0x11/0x70 [sunrpc]")
            kern(sc, job, ih, tf + 245, " nfs4_do_open+0x2a8/0x8c0 [nfsv4]")
        elif v == "lustre":
            kern(sc, job, ih, tf + 40, "LustreError: 11-0: scratch-OST00%02x-osc-ffff9a%010x: operation ost_read to node 10.20.0.%d@o2ib failed: rc = -107" % (rng.randint(0, 40), rng.getrandbits(40), rng.randint(2, 60)))
            kern(sc, job, ih, tf + 41, "Lustre: scratch-OST00%02x-osc-ffff9a%010x: Connection to scratch-OST00%02x (at 10.20.0.%d@o2ib) was lost; in progress operations using this service will wait for recovery to complete" % (3, rng.getrandbits(40), 3, rng.randint(2, 60)))
        sc["pyspy"] = pyspy(job, init, rng, "data")
        if v == "timeout":
            t2 = tf + 300
            add_tail(sc, init, t2, py_tb(job, TRAIN_FRAMES + [("/workspace/train.py", 199, "train_one_epoch", "for step, batch in enumerate(loader):"),
                                                              ("{site}/torch/utils/data/dataloader.py", 630, "__next__", "data = self._next_data()"),
                                                              ("{site}/torch/utils/data/dataloader.py", 1328, "_next_data", "idx, data = self._get_data()"),
                                                              ("{site}/torch/utils/data/dataloader.py", 1294, "_get_data", "success, data = self._try_get_data()"),
                                                              ("{site}/torch/utils/data/dataloader.py", 1145, "_try_get_data", "raise RuntimeError(f'DataLoader timed out after {self._timeout} seconds') from e")],
                                                 "RuntimeError: DataLoader timed out after 300 seconds"))
            set_exit(sc, init, t2 + 1, "code", 1)
        collateral(job, sc, rng, tf, init, seq)
        sc["stall_all"] = tf
        if v in ("nfs", "lustre") and not sc["pyspy"]:
            sc["init"] = {"rank": None, "node": ih}
        sc["notes"] = "rank %d (%s) stuck reading data (%s)" % (init, ih, v)

    elif cause == "collective_mismatch":
        if init == 0:
            init = W - 1
            ih = host_of(job, init)
            sc["init"] = {"rank": init, "node": ih}
        if rng.random() < 0.5:
            ex = ("RuntimeError: Detected mismatch between collectives on ranks. Rank %d is running collective: CollectiveFingerPrint(SequenceNumber=%d, OpType=%s, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))), but Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=%d, OpType=ALLREDUCE, TensorShape=[%d], TensorDtypes=Float, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))).Collectives differ in the following aspects: \t Op type: %svs ALLREDUCE  Tensor Tensor shapes: %dvs %d"
                  % (init, seq, "BROADCAST", 1, seq, 4194304, "BROADCAST", 1, 4194304))
            for r in range(W):
                t = tf + rng.uniform(0, 2)
                add_tail(sc, r, t, py_tb(job, TRAIN_FRAMES + [("/workspace/train.py", 240, "train_one_epoch", "dist.all_reduce(metrics)" if r != init else "dist.broadcast(stop_flag, src=0)"),
                                                              ("{site}/torch/distributed/c10d_logger.py", 79, "wrapper", "return func(*args, **kwargs)")], ex))
                set_exit(sc, r, t + 0.4, "code", 1)
            sc["notes"] = "rank %d called broadcast while others called all_reduce (TORCH_DISTRIBUTED_DEBUG=DETAIL)" % init
        else:
            set_exit(sc, init, INF, "stuck", None)
            t = tf + 600 + rng.uniform(0.1, 2)
            add_tail(sc, init, t, watchdog_lines(job, t, ih, init, seq, "BROADCAST", 1))
            set_exit(sc, init, t + 0.2, "sig", "SIGABRT")
            collateral(job, sc, rng, tf, init, seq, op="ALLREDUCE", numel=4194304)
            sc["notes"] = "rank %d issued BROADCAST(numel=1) while others issued ALLREDUCE at the same SeqNum; all time out" % init

    elif cause == "unknown":
        set_exit(sc, init, tf, "code", 1)
        collateral(job, sc, rng, tf, init, seq)
        sc["init"] = None
        sc["_init_rank"] = init
        sc["notes"] = "rank %d exited with code 1 without printing anything" % init
    else:
        raise ValueError(cause)
    return sc


def harmless_kernel(job, sc, rng):
    h = rng.choice(job["hosts"])
    if rng.random() < 0.6:
        kern(sc, job, h, rng.uniform(10, 500), "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.%d.%02d" % (rng.randint(100, 200), rng.randint(1, 12)))
        kern(sc, job, h, rng.uniform(600, 900), "nvidia-peermem: module verification failed: signature and/or required key missing - tainting kernel")
    if rng.random() < 0.5:
        kern(sc, job, h, rng.uniform(900, 2000), "mlx5_core 0000:%02x:00.0: mlx5_pcie_event:301:(pid %d): PCIe slot advertised sufficient power (75W)." % (rng.randint(16, 200), rng.randint(100, 9000)))
    if rng.random() < 0.4:
        kern(sc, job, h, rng.uniform(900, 2000), "EDAC MC0: 1 CE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0 (channel:1 slot:0 page:0x%x offset:0x0 grain:32 syndrome:0x0)" % rng.getrandbits(24))
    if rng.random() < 0.3:
        kern(sc, job, h, rng.uniform(2000, 3000), "python[%d]: segfault at 0 ip 00007f%08x sp 00007ffd%08x error 4 in libnvidia-ml.so.535[7f%08x+1a0000]" % (rng.randint(1000, 9000), rng.getrandbits(32), rng.getrandbits(32), rng.getrandbits(32)))
        sc["harmless_segv"] = True


def nvsmi_ecc(job, r, rng):
    return "\n".join([
        "==============NVSMI LOG==============", "",
        "Timestamp                                 : %s" % T(job, 0, host_of(job, r)).strftime("%a %b %d %H:%M:%S %Y"),
        "Driver Version                            : 535.%d.%02d" % (rng.randint(100, 200), rng.randint(1, 12)),
        "CUDA Version                              : 12.2", "",
        "Attached GPUs                             : %d" % job["gpn"],
        "GPU 0000%s.0" % pci(job, r)[4:].upper().replace("0000", ""),
        "    Product Name                          : %s" % job["gpu"],
        "    ECC Errors",
        "        Volatile",
        "            SRAM Correctable              : 0",
        "            SRAM Uncorrectable Parity     : 0",
        "            SRAM Uncorrectable SEC-DED    : 0",
        "            DRAM Correctable              : %d" % rng.randint(0, 40),
        "            DRAM Uncorrectable            : %d" % rng.randint(1, 4),
        "        Aggregate",
        "            DRAM Correctable              : %d" % rng.randint(40, 400),
        "            DRAM Uncorrectable            : %d" % rng.randint(2, 9),
        "    Remapped Rows",
        "        Correctable Error                 : 0",
        "        Uncorrectable Error               : %d" % rng.randint(1, 8),
        "        Pending                           : Yes",
        "        Remapping Failure Occurred        : %s" % rng.choice(["Yes", "No"]),
        "",
    ]) + "\n"


def nvsmi_perf(job, r, why):
    rows = []
    for l in range(job["gpn"]):
        bad = l == local_of(job, r)
        rows.append("GPU 00000000:%s:00.0" % job["buses"][l % len(job["buses"])].upper())
        rows.append("    Clocks Event Reasons")
        rows.append("        Idle                              : Not Active")
        rows.append("        Applications Clocks Setting       : Not Active")
        rows.append("        SW Power Cap                      : %s" % ("Active" if bad and why == "power" else "Not Active"))
        rows.append("        HW Slowdown                       : %s" % ("Active" if bad and why in ("thermal", "power") else "Not Active"))
        rows.append("            HW Thermal Slowdown           : %s" % ("Active" if bad and why == "thermal" else "Not Active"))
        rows.append("            HW Power Brake Slowdown       : %s" % ("Active" if bad and why == "power" else "Not Active"))
        rows.append("        SW Thermal Slowdown               : %s" % ("Active" if bad and why == "thermal" else "Not Active"))
        if why == "pcie":
            rows.append("    PCI")
            rows.append("        GPU Link Info")
            rows.append("            PCIe Generation")
            rows.append("                Max                       : 4")
            rows.append("                Current                   : %s" % ("1" if bad else "4"))
            rows.append("            Link Width")
            rows.append("                Max                       : 16x")
            rows.append("                Current                   : %s" % ("4x" if bad else "16x"))
        rows.append("    Temperature")
        rows.append("        GPU Current Temp                  : %d C" % (89 if bad and why == "thermal" else 52 + l))
        rows.append("")
    return "\n".join(rows) + "\n"


def pyspy(job, r, rng, kind):
    p = job["pids"][r]
    site = "%s/lib/python%s/site-packages" % (job["conda"], job["py"])
    out = ["# rank %d @ %s (GPU %d, GPU-Util 0%%)" % (r, host_of(job, r), local_of(job, r)),
           "Process %d: %s/bin/python -u train.py --config configs/%s.yaml" % (p, job["conda"], job["model"]),
           "Python v%s.%d (%s/bin/python%s)" % (job["py"], rng.randint(4, 14), job["conda"], job["py"]), "",
           "Thread %d (idle): \"MainThread\"" % p]
    if kind == "hang":
        out += ["    wait (threading.py:%d)" % 320,
                "    get (queue.py:171)",
                "    wait_for_checkpoint_writer (/workspace/utils/ckpt.py:77)",
                "    train_one_epoch (/workspace/train.py:251)",
                "    main (/workspace/train.py:377)", "    <module> (/workspace/train.py:412)"]
    else:
        out[-1] = "Thread %d (active): \"MainThread\"" % p
        out += ["    _try_get_data (%s/torch/utils/data/dataloader.py:1133)" % site,
                "    _get_data (%s/torch/utils/data/dataloader.py:1294)" % site,
                "    _next_data (%s/torch/utils/data/dataloader.py:1328)" % site,
                "    __next__ (%s/torch/utils/data/dataloader.py:630)" % site,
                "    train_one_epoch (/workspace/train.py:199)",
                "    main (/workspace/train.py:377)", "    <module> (/workspace/train.py:412)",
                "Thread %d (idle): \"pt_data_worker_%d\"" % (p + 31, rng.randint(0, 7)),
                "    read (%s/pyarrow/parquet/core.py:%d)" % (site, rng.randint(1000, 3000)),
                "    __getitem__ (/workspace/data/dataset.py:61)"]
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------
# launchers: apply launcher reactions to the natural exits
# --------------------------------------------------------------------------------------
def cut(stream, t_kill):
    return [(t, l) for (t, l) in stream if t <= t_kill]


def rank_streams(job, sc, rng):
    """base progress + tails for every rank"""
    out = {}
    for r in range(job["world"]):
        te = sc["exits"].get(r, (INF, "stuck", None))[0]
        stop = min([x for x in (sc["t_fail"], te, sc.get("stall_all", INF), sc.get("end", INF)) if x is not None])
        if sc.get("preempt"):
            stop = sc["preempt"]["t"]
        st = base_stream(job, r, random.Random("%s-base-%d" % (sc["seed"], r)), stop, sc)
        if sc.get("end") is not None and r == 0:
            st.append((sc["end"], "%s - INFO - %s. steps=%d" % (pylog(job, sc["end"], host_of(job, 0)), LOC[job["lc"]]["done"] if job["lc"] in LOC else "Training finished", sc.get("last_step", {}).get(0, job["steps"]))))
        st += sc["tails"].get(r, [])
        st.sort(key=lambda x: x[0])
        out[r] = st
    return out


def apply_node_kill(job, sc, streams, exits, hosts_kill):
    """hosts_kill: {host: t_kill}; ranks on host alive at t_kill get SIGTERM."""
    for r in range(job["world"]):
        h = host_of(job, r)
        if h in hosts_kill:
            tk = hosts_kill[h]
            te = exits[r][0]
            if te > tk:
                exits[r] = (tk + 0.05, "sig", "SIGTERM")
                streams[r] = cut(streams[r], tk)


def fmt_exitcode(kind, val):
    if kind == "sig":
        return -SIGNUM[val]
    return val


def torchrun_node(job, sc, host, exits, rng, style, t_ext=None, ext_sig="SIGTERM"):
    """torchrun agent behaviour on one node. Modifies exits (kills local peers).
    Returns (agent_lines [(t,line)], killed_at or None, node_exit_code)."""
    ranks = [r for r in range(job["world"]) if host_of(job, r) == host]
    out = []
    binp = "%s/bin/python" % job["conda"]
    lvl_w = lambda t, src: elog(job, t, host, "W", src) if style == "new" else "WARNING:torch.distributed.elastic.multiprocessing.api:"
    lvl_e = lambda t, src: elog(job, t, host, "E", src) if style == "new" else "ERROR:torch.distributed.elastic.multiprocessing.api:"
    out.append((0.5, (elog(job, 0.5, host, "W", "torch/distributed/run.py:793") if style == "new" else "WARNING:__main__:") ))
    out.append((0.5, "*****************************************"))
    out.append((0.5, "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. "))
    out.append((0.5, "*****************************************"))
    first = min(ranks, key=lambda r: (exits[r][0], r))
    tf = exits[first][0]
    bad = [r for r in ranks if exits[r][0] < INF and not (exits[r][1] == "code" and exits[r][2] == 0)]
    if t_ext is not None and t_ext < tf:
        # external signal to the agent
        out.append((t_ext, lvl_w(t_ext, "torch/distributed/elastic/agent/server/api.py:704") + "Received %s death signal, shutting down workers" % ("Signals." + ext_sig if style == "new" else ext_sig)))
        for r in ranks:
            out.append((t_ext + 0.01, lvl_w(t_ext + 0.01, "torch/distributed/elastic/multiprocessing/api.py:897") + "Sending process %d closing signal %s" % (job["pids"][r], ext_sig)))
            if exits[r][0] > t_ext:
                exits[r] = (t_ext + 0.1, "sig", ext_sig)
        tb = ["Traceback (most recent call last):",
              '  File "%s/bin/torchrun", line 8, in <module>' % job["conda"],
              "    sys.exit(main())", "             ^^^^^^",
              '  File "%s/lib/python%s/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper' % (job["conda"], job["py"]),
              "    return f(*args, **kwargs)",
              '  File "%s/lib/python%s/site-packages/torch/distributed/run.py", line 919, in main' % (job["conda"], job["py"]),
              "    run(args)",
              '  File "%s/lib/python%s/site-packages/torch/distributed/elastic/multiprocessing/api.py", line 84, in _terminate_process_handler' % (job["conda"], job["py"]),
              "    raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)",
              "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: %d" % (job["agent_pid"][host], SIGNUM[ext_sig])]
        out += [(t_ext + 0.3, l) for l in tb]
        return out, t_ext, 1
    if tf == INF:
        return out, None, None
    if not bad:
        out.append((tf + 0.5, (elog(job, tf + 0.5, host, "I", "torch/distributed/elastic/agent/server/api.py:879") if style == "new" else "INFO:torch.distributed.elastic.agent.server.api:") + "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish."))
        out.append((tf + 0.6, (elog(job, tf + 0.6, host, "I", "torch/distributed/elastic/agent/server/api.py:932") if style == "new" else "INFO:torch.distributed.elastic.agent.server.api:") + "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish"))
        out.append((tf + 0.7, (elog(job, tf + 0.7, host, "I", "torch/distributed/elastic/agent/server/api.py:946") if style == "new" else "INFO:torch.distributed.elastic.agent.server.api:") + "Done waiting for other agents. Elapsed: %.7f seconds" % rng.uniform(0.0001, 2)))
        return out, None, 0
    tk = tf + rng.uniform(0.1, 0.9)
    failures = [r for r in ranks if r != first and exits[r][0] <= tk and exits[r][0] < INF]
    for r in ranks:
        if r == first or r in failures:
            continue
        out.append((tk, lvl_w(tk, "torch/distributed/elastic/multiprocessing/api.py:897") + "Sending process %d closing signal SIGTERM" % job["pids"][r]))
        exits[r] = (tk + 0.05, "sig", "SIGTERM")
    fe = fmt_exitcode(exits[first][1], exits[first][2])
    out.append((tk + 0.6, lvl_e(tk + 0.6, "torch/distributed/elastic/multiprocessing/api.py:869") + "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (fe, local_of(job, first), job["pids"][first], binp)))
    tb = ["Traceback (most recent call last):",
          '  File "%s/bin/torchrun", line 8, in <module>' % job["conda"],
          "    sys.exit(main())",
          '  File "%s/lib/python%s/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper' % (job["conda"], job["py"]),
          "    return f(*args, **kwargs)",
          '  File "%s/lib/python%s/site-packages/torch/distributed/run.py", line 919, in main' % (job["conda"], job["py"]),
          "    run(args)",
          '  File "%s/lib/python%s/site-packages/torch/distributed/run.py", line 910, in run' % (job["conda"], job["py"]),
          "    elastic_launch(",
          '  File "%s/lib/python%s/site-packages/torch/distributed/launcher/api.py", line 138, in __call__' % (job["conda"], job["py"]),
          "    return launch_agent(self._config, self._entrypoint, list(args))",
          '  File "%s/lib/python%s/site-packages/torch/distributed/launcher/api.py", line 269, in launch_agent' % (job["conda"], job["py"]),
          "    raise ChildFailedError(",
          "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
          "============================================================",
          "train.py FAILED",
          "------------------------------------------------------------",
          "Failures:"]

    def entry(idx, r):
        t = exits[r][0]
        e = fmt_exitcode(exits[r][1], exits[r][2])
        if exits[r][1] == "sig":
            trb = "Signal %d (%s) received by PID %d" % (SIGNUM[exits[r][2]], exits[r][2], job["pids"][r])
        else:
            trb = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
        return ["[%d]:" % idx,
                "  time      : %s" % T(job, t, host).strftime("%Y-%m-%d_%H:%M:%S"),
                "  host      : %s" % host,
                "  rank      : %d (local_rank: %d)" % (r, local_of(job, r)),
                "  exitcode  : %d (pid: %d)" % (e, job["pids"][r]),
                "  error_file: <N/A>",
                "  traceback : %s" % trb]
    if failures:
        for i, r in enumerate(failures):
            tb += entry(i + 1, r)
    else:
        tb.append("  <NO_OTHER_FAILURES>")
    tb += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
    tb += entry(0, first)
    tb.append("============================================================")
    out += [(tk + 0.7, l) for l in tb]
    return out, tk, 1


def initial_exits(job, sc):
    ex = {}
    for r in range(job["world"]):
        ex[r] = sc["exits"].get(r, (INF, "stuck", None))
    return ex


# --------------------------------------------------------------------------------------
# encodings / writing
# --------------------------------------------------------------------------------------
def mojibake(text):
    """UTF-8 bytes read as Windows-1252 (undefined bytes as Latin-1), saved again as UTF-8."""
    b = text.encode("utf-8")
    out = []
    for ch in b:
        try:
            out.append(bytes([ch]).decode("cp1252"))
        except UnicodeDecodeError:
            out.append(chr(ch))
    return "".join(out)


def write(path, text, enc="utf-8", bom=False, crlf=False, errors="replace"):
    if crlf:
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    if enc == "utf-16":
        data = b"\xff\xfe" + text.encode("utf-16-le")
    else:
        data = text.encode(enc, errors=errors)
        if bom and enc == "utf-8":
            data = b"\xef\xbb\xbf" + data
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def join(lines):
    return "\n".join(lines) + "\n"


def merge(*streams):
    allx = []
    for k, s in enumerate(streams):
        for i, (t, l) in enumerate(s):
            allx.append((t, k, i, l))
    allx.sort(key=lambda x: (x[0], x[1], x[2]))
    return [x[3] for x in allx]


def kernel_text(job, sc, host, lc, fmt, rng, noise=True):
    ev = list(sc["kernel"].get(host, []))
    if noise:
        r2 = random.Random("%s-kn-%s" % (sc["seed"], host))
        for k in range(r2.randint(2, 6)):
            ev.append((r2.uniform(-3000, sc["t_fail"] + 900), r2.choice([
                "audit: type=1400 audit(%d.%03d:%d): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd.daemon\" name=\"/proc/%d/mountinfo\"" % (1700000000 + r2.randint(0, 9e7), r2.randint(0, 999), r2.randint(100, 999), r2.randint(1000, 9999)),
                "IPv6: ADDRCONF(NETDEV_CHANGE): docker0: link becomes ready",
                "nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  535.%d.%02d" % (r2.randint(100, 200), r2.randint(1, 12)),
                "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Quota mode: none.",
                "perf: interrupt took too long (2502 > 2500), lowering kernel.perf_event_max_sample_rate to 79750",
                "br-%012x: port 1(veth%07x) entered forwarding state" % (r2.getrandbits(48), r2.getrandbits(28)),
                "nvidia-nvlink: Nvlink Core is being initialized, major device number 5%d" % r2.randint(0, 9),
                "NVRM: Persistence mode is deprecated and will be removed in a future release. Please use nvidia-persistenced instead.",
            ])))
    ev.sort(key=lambda x: x[0])
    lines = []
    boot = (86400.0 * random.Random(host).uniform(1, 40)) if not host.startswith(("DESKTOP-", "WS-", "LAB-PC-")) else random.Random(host).uniform(40, 900)
    for t, m in ev:
        d = T(job, t, host)
        if fmt == "dmesgT":
            lines.append("%s %s" % (ldmesg(lc, d), m))
        elif fmt == "journal":
            lines.append("%s %s kernel: %s" % (ljournal(lc, d), host, m))
        elif fmt == "syslog_c":
            lines.append("%s %s kernel: [%12.6f] %s" % (d.strftime("%b %e %H:%M:%S"), host, boot + t, m))
        else:
            lines.append("[%12.6f] %s" % (boot + t, m))
    return lines


def user_note(lc, rng, kind, extra_lines):
    L = LOC[lc]
    lines = [L[kind]]
    lines.append("")
    if kind == "fail_note":
        lines.append(rng.choice(L["comments"]))
    else:
        lines.append(rng.choice([c for c in L["comments"] if c.startswith("#")][-3:]))
    lines += extra_lines
    return lines


# --------------------------------------------------------------------------------------
# layout renderers
# --------------------------------------------------------------------------------------
def pick_tail_lines(stream, n):
    return [l for _, l in stream[-n:]]


def note_kind(cause):
    if cause is None:
        return "healthy_note"
    if cause == "straggler":
        return "slow_note"
    return "fail_note"


def r_slurm(d, job, sc, rng, lc, cause, variant):
    """Slurm batch, `srun --label python train.py`, one task per GPU."""
    streams = rank_streams(job, sc, rng)
    exits = initial_exits(job, sc)
    jid = job["jobid"]
    h0 = job["hosts"][0]
    kob = rng.random() < 0.4  # --kill-on-bad-exit
    srun = []
    preempt = sc.get("preempt")
    t_end = None
    if preempt:
        tp = preempt["t"]
        why = preempt["why"]
        stamp = T(job, tp, h0).strftime("%Y-%m-%dT%H:%M:%S")
        for h in job["hosts"]:
            srun.append((tp, "slurmstepd: error: *** %s %d%s ON %s CANCELLED AT %s DUE TO %s ***" % (
                "JOB" if h == h0 else "STEP", jid, "" if h == h0 else ".0", h, T(job, tp, h).strftime("%Y-%m-%dT%H:%M:%S"), why)))
        srun.append((tp + 0.1, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
        srun.append((tp + 0.1, "srun: got SIGCONT"))
        srun.append((tp + 0.1, "srun: forcing job termination"))
        apply_node_kill(job, sc, streams, exits, {h: tp for h in job["hosts"]})
        for r in range(job["world"]):
            if rng.random() < 0.3:
                streams[r].append((tp + 0.02, "[rank%d]: received SIGTERM, saving emergency checkpoint ..." % r) if r == 0 else (tp, ""))
        t_end = tp + 1
    else:
        order = sorted(range(job["world"]), key=lambda r: (exits[r][0], r))
        first = order[0]
        tf = exits[first][0]
        if tf < INF and kob and not (exits[first][1] == "code" and exits[first][2] == 0):
            tk = tf + 0.2
            srun.append((tk, "srun: error: %s: task %d: %s" % (host_of(job, first), first, srun_status(exits[first], sc))))
            srun.append((tk + 0.01, "srun: launch/slurm: _step_signal: Terminating StepId=%d.0" % jid))
            srun.append((tk + 0.02, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (jid, h0, T(job, tk, h0).strftime("%Y-%m-%dT%H:%M:%S"))))
            done = {first}
            for r in range(job["world"]):
                if r != first and exits[r][0] > tk:
                    exits[r] = (tk + 0.1, "sig", "SIGTERM")
                    streams[r] = cut(streams[r], tk)
        if sc.get("cgroup_oom") or cause == "host_oom_kill":
            ih = sc["init"]["node"] if sc["init"] else h0
            srun.append((sc["t_fail"] + 0.5, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % jid))
        # stuck ranks never exit: job ends when time limit hits or user cancels
        if any(exits[r][0] == INF for r in exits):
            tc = max([exits[r][0] for r in exits if exits[r][0] < INF] + [sc["t_fail"]]) + rng.uniform(600, 4000)
            why = rng.choice(["TIME LIMIT", ""])
            srun.append((tc, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s %s***" % (jid, h0, T(job, tc, h0).strftime("%Y-%m-%dT%H:%M:%S"), ("DUE TO " + why + " ") if why else "")))
            srun.append((tc + 0.1, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish."))
            for r in exits:
                if exits[r][0] == INF:
                    exits[r] = (tc + 0.2, "sig", "SIGTERM")
            sc["cancel_note"] = why or "scancel by user"
        # group srun messages per (host, status)
        groups = {}
        for r in sorted(exits, key=lambda r: (exits[r][0], r)):
            te, k, v = exits[r]
            if k == "code" and v == 0:
                continue
            if kob and r == first:
                continue
            key = (host_of(job, r), srun_status(exits[r], sc), round(te / 5.0))
            groups.setdefault(key, []).append(r)
        for (h, st, _), rs in sorted(groups.items(), key=lambda kv: (min(exits[r][0] for r in kv[1]), kv[0][0])):
            te = max(exits[r][0] for r in rs)
            srun.append((te + 0.3, "srun: error: %s: task%s %s: %s" % (h, "s" if len(rs) > 1 else "", ranges(rs), st)))
        t_end = max([exits[r][0] for r in exits] + [x[0] for x in srun]) + 1
    # compose slurm-JOB.out
    lab = [[(t, "%d: %s" % (r, l)) if l else (t, "%d: " % r) for (t, l) in streams[r]] for r in range(job["world"])]
    head = [(-5, ldate(lc, T(job, -5, h0))),
            (-5, "%s" % h0),
            (-4, "SLURM_JOB_ID=%d SLURM_NNODES=%d SLURM_NTASKS=%d" % (jid, len(job["hosts"]), job["world"])),
            (-4, "MASTER_ADDR=%s MASTER_PORT=%d" % (h0, job["port"]))]
    if rng.random() < 0.5:
        head += [(-3, "The following modules were not unloaded:"), (-3, "  (Use \"module --force purge\" to unload all):"), (-3, ""), (-3, "  1) StdEnv")]
    tail = []
    st = "0" if sc.get("healthy") or cause == "straggler" else "1"
    if not preempt:
        if cause is None or rng.random() < 0.3:
            tail.append((t_end, shell_msg(lc, rng, "/var/spool/slurmd/job%d/slurm_script" % jid, rng.randint(30, 60),
                                          job["agent_pid"][h0] - rng.randint(5, 90), "SIGTERM", "nvidia-smi dmon -s pucm -d 30 > gpu_monitor_%d.log" % jid)))
        tail.append((t_end, ldate(lc, T(job, t_end, h0))))
        tail.append((t_end, "exit code: %s" % st))
    lines = merge(head, *lab, srun, tail)
    # user trimming
    trimmed = False
    if len(lines) > 1800 or (rng.random() < 0.25 and len(lines) > 400):
        k = rng.randint(150, 300)
        lines = lines[:k] + [rng.choice(LOC[lc]["comments"]) if lc in LOC else "...", "..."] + lines[-min(len(lines) - k, rng.randint(600, 1200)):]
        trimmed = True
    out_name = "slurm-%d.out" % jid
    text = join(lines)
    files = {}
    if variant == "fr":
        # the user opened it in an editor that decoded UTF-8 as Windows-1252, then saved
        out_name = "%s_%d.out" % (job["model"].replace("-", "_"), jid)
        text = mojibake(text)
        files[out_name] = (text, "utf-8", False, rng.random() < 0.3)
    else:
        files[out_name] = (text, "utf-8", False, False)
    # kernel logs
    kh = [h for h in job["hosts"] if sc["kernel"].get(h)]
    if rng.random() < 0.6 or not kh:
        kh = sorted(set(kh + [rng.choice(job["hosts"])]), key=job["hosts"].index)
    for h in kh:
        fmt = rng.choice(["dmesgT", "journal"])
        ktxt = kernel_text(job, sc, h, lc, fmt, rng)
        name = ("dmesg_%s.txt" if fmt == "dmesgT" else "journalctl-k_%s.log") % h
        files[name] = (join(ktxt), "utf-8", False, False)
    # sacct
    if rng.random() < 0.6:
        state = "COMPLETED" if st == "0" else ("TIMEOUT" if preempt and preempt["why"] == "TIME LIMIT" else ("PREEMPTED" if preempt else ("OUT_OF_MEMORY" if cause == "host_oom_kill" and sc.get("cgroup_oom") else ("CANCELLED" if sc.get("cancel_note") else "FAILED"))))
        sac = ["JobID           JobName  Partition    Account  AllocCPUS      State ExitCode ",
               "------------ ---------- ---------- ---------- ---------- ---------- -------- ",
               "%-12s %10s %10s %10s %10d %10s %8s " % (jid, "train", rng.choice(["gpu", "a100", "h100", "gpu_p5"]), rng.choice(["ai", "nlp", "lab"]), job["world"] * 8, state, "0:0" if st == "0" else "1:0"),
               "%-12s %10s %10s %10s %10d %10s %8s " % ("%d.batch" % jid, "batch", "", "", 8, "COMPLETED" if st == "0" else state, "0:0" if st == "0" else "1:0"),
               "%-12s %10s %10s %10s %10d %10s %8s " % ("%d.0" % jid, "python", "", "", job["world"] * 8, state, "0:0" if st == "0" else "1:0")]
        files["sacct_%d.txt" % jid] = (join(sac), "utf-8", False, False)
    # user note
    note = user_note(lc, rng, note_kind(cause), [])
    if cause and cause not in ("straggler",) and rng.random() < 0.6:
        # paste a few lines of the relevant rank
        pr = sc["init"]["rank"] if sc.get("init") and sc["init"].get("rank") is not None else rng.randrange(job["world"])
        note += pick_tail_lines(streams[pr], rng.randint(3, 8))
        note.append(rng.choice(LOC[lc]["comments"]))
    if sc.get("pyspy") and rng.random() < 0.7:
        note += ["", "py-spy dump --pid %d  (%s)" % (job["pids"][sc["init"]["rank"]], host_of(job, sc["init"]["rank"]))] + sc["pyspy"].splitlines()
        sc["pyspy_shown"] = True
    if sc["nvsmi"]:
        for h, v in sc["nvsmi"].items():
            if v:
                files["nvidia-smi-q_%s.txt" % h] = (v, "utf-8", False, False)
    if variant == "zh":
        files["问题描述.txt"] = (join(note), "gbk", False, True)
    elif variant == "es":
        files["nota_usuario.txt"] = (join(note), "latin-1", False, rng.random() < 0.5)
    else:
        files["README_incident.txt"] = (join(note), "utf-8", rng.random() < 0.5, rng.random() < 0.5)
    sc["trimmed"] = trimmed
    return files


def srun_status(ex, sc):
    t, k, v = ex
    if k == "code":
        return "Exited with exit code %d" % v
    if v == "SIGKILL" and sc.get("cgroup_oom"):
        return "Out Of Memory"
    return EN_SIG[v] + (" (core dumped)" if v in CORE_SIGS else "")


def ranges(rs):
    rs = sorted(rs)
    out = []
    s = p = rs[0]
    for x in rs[1:]:
        if x == p + 1:
            p = x
            continue
        out.append("%d" % s if s == p else "%d-%d" % (s, p))
        s = p = x
    out.append("%d" % s if s == p else "%d-%d" % (s, p))
    return ",".join(out)


def r_bgloop(d, job, sc, rng, lc, cause):
    """per-node start.sh launching one background python per GPU, `wait`; nohup.out has
    bash's localized job messages; per-rank logs in logs/."""
    streams = rank_streams(job, sc, rng)
    exits = initial_exits(job, sc)
    files = {}
    preempt = sc.get("preempt")
    if preempt:
        tp = preempt["t"]
        apply_node_kill(job, sc, streams, exits, {h: tp for h in job["hosts"]})
    # stuck ranks: the user kills them by hand
    user_kill = None
    if any(exits[r][0] == INF for r in exits):
        user_kill = max([exits[r][0] for r in exits if exits[r][0] < INF] + [sc["t_fail"]]) + rng.uniform(300, 3000)
        for r in exits:
            if exits[r][0] == INF:
                exits[r] = (user_kill, "sig", rng.choice(["SIGTERM", "SIGKILL"]))
    script = rng.choice(["./start.sh", "./run_dist.sh", "scripts/train_multi.sh"])
    lineno = rng.randint(12, 40)
    for hi, h in enumerate(job["hosts"]):
        nh = [ldate(lc, T(job, -3, h)), "%s %s" % (LOC[lc]["start"], job["model"]),
              "MASTER_ADDR=%s MASTER_PORT=%d NODE_RANK=%d" % (job["hosts"][0], job["port"], hi)]
        rs = [r for r in range(job["world"]) if host_of(job, r) == h]
        evs = []
        for r in sorted(rs, key=lambda r: (exits[r][0], r)):
            te, k, v = exits[r]
            if k == "sig":
                cmd = "CUDA_VISIBLE_DEVICES=%d python train.py --rank %d --world_size %d --local_rank %d > logs/rank%d.log 2>&1" % (local_of(job, r), r, job["world"], local_of(job, r), r)
                evs.append(shell_msg(lc, rng, script, lineno, job["pids"][r], v, cmd))
        if preempt:
            nh.append("")
            nh.append("Broadcast message from root@%s (somewhere) (%s):" % (h, T(job, preempt["t"] - 60, h).strftime("%a %Y-%m-%d %H:%M:%S %Z").strip()))
            nh.append("")
            nh.append("The system is going down for poweroff NOW!" if preempt["why"] != "PREEMPTION" else "spot instance reclaimed: the system is going down for poweroff NOW!")
        nh += evs
        te_all = max(exits[r][0] for r in rs)
        if not preempt:
            nh.append(ldate(lc, T(job, te_all + 1, h)))
        if cause is None and rng.random() < 0.6:
            # scary but harmless: they killed a leftover tensorboard at the end
            nh.append("%s: %s %6d %s  tensorboard --logdir runs --bind_all" % (script, LOC[lc]["line"] % (lineno + 4), rng.randint(1000, 99999), LOC[lc]["sig"]["SIGTERM"]))
        files["nohup_%s.out" % h] = (join(nh), "utf-8", False, False)
    # per rank logs (user may attach only a subset)
    show = list(range(job["world"]))
    if job["world"] > 8 and rng.random() < 0.5:
        keep = set(rng.sample(show, 6))
        if sc.get("init") and sc["init"].get("rank") is not None and rng.random() < 0.8:
            keep.add(sc["init"]["rank"])
        keep.add(0)
        show = sorted(keep)
        sc["subset"] = True
    for r in show:
        files["logs/rank%d.log" % r] = (join([l for _, l in streams[r]]), "utf-8", False, False)
    kh = [h for h in job["hosts"] if sc["kernel"].get(h)] or [rng.choice(job["hosts"])]
    for h in kh:
        files["journalctl_k_%s.txt" % h] = (join(kernel_text(job, sc, h, lc, "journal", rng)), "utf-8", False, False)
    for h, v in sc["nvsmi"].items():
        if v:
            files["nvidia-smi_%s.txt" % h] = (v, "utf-8", False, False)
    note = user_note(lc, rng, note_kind(cause), [])
    if sc.get("pyspy") and rng.random() < 0.7:
        note += ["", "py-spy dump --pid %d" % job["pids"][sc["init"]["rank"]]] + sc["pyspy"].splitlines()
        sc["pyspy_shown"] = True
    if cause and rng.random() < 0.6:
        h = rng.choice(job["hosts"])
        nf = files["nohup_%s.out" % h][0].splitlines()
        note += [rng.choice(LOC[lc]["comments"])] + nf[-rng.randint(2, 6):]
    files["情况说明_GBK.txt"] = (join(note), "gbk", False, True)
    if user_kill:
        sc["user_kill"] = True
    return files


def r_torchrun(d, job, sc, rng, lc, cause, variant):
    """torchrun per node, console captured per node. variant: de (UTF-8 BOM notes,
    German shell), ja (Shift-JIS main log, CRLF), wsl (handled separately)."""
    streams = rank_streams(job, sc, rng)
    exits = initial_exits(job, sc)
    style = "new" if job["torch_new"] else "old"
    preempt = sc.get("preempt")
    files = {}
    prefix = rng.random() < 0.6
    node_out = {}
    # stuck ranks on nodes where nothing else dies: user presses Ctrl-C later
    t_ctrlc = None
    if any(exits[r][0] == INF for r in exits):
        t_ctrlc = max([exits[r][0] for r in exits if exits[r][0] < INF] + [sc["t_fail"]]) + rng.uniform(300, 3000)
    agent = {}
    # first pass: nodes with their own failures
    order = sorted(job["hosts"], key=lambda h: min(exits[r][0] for r in range(job["world"]) if host_of(job, r) == h))
    for h in order:
        t_ext = preempt["t"] if preempt else None
        sig = "SIGTERM"
        rs = [r for r in range(job["world"]) if host_of(job, r) == h]
        if not preempt and min(exits[r][0] for r in rs) == INF and t_ctrlc:
            t_ext, sig = t_ctrlc, "SIGINT"
        lines, tk, code = torchrun_node(job, sc, h, exits, rng, style, t_ext, sig)
        agent[h] = (lines, tk, code, sig if t_ext else None)
        if tk is not None:
            for r in rs:
                streams[r] = cut(streams[r], tk + 0.01) if exits[r][1] == "sig" and exits[r][2] in ("SIGTERM", "SIGINT") else streams[r]
    shell_end = {}
    for hi, h in enumerate(job["hosts"]):
        rs = [r for r in range(job["world"]) if host_of(job, r) == h]
        lines, tk, code, sig = agent[h]
        pref = []
        for r in rs:
            p = "[default%d]:" % local_of(job, r) if prefix else ""
            pref.append([(t, p + l) for (t, l) in streams[r]])
        cmd = "torchrun --nnodes=%d --nproc_per_node=%d --node_rank=%d --master_addr=%s --master_port=%d train.py --config configs/%s.yaml" % (
            len(job["hosts"]), job["gpn"], hi, job["ip"][job["hosts"][0]], job["port"], job["model"])
        prompt = {"de": "%s@%s:~/projekt$ " % (rng.choice(["mueller", "schmidt", "lehmann"]), h),
                  "ja": "%s@%s:~/work$ " % (rng.choice(["tanaka", "sato", "suzuki"]), h),
                  "fr": "%s@%s:~$ " % ("dupont", h)}.get(variant, "$ ")
        head = [(-10, prompt + "date"), (-10, ldate(lc, T(job, -10, h))), (-9, prompt + cmd)]
        tail = []
        if sig == "SIGINT":
            tail.append((t_ctrlc - 0.01, "^C"))
        if preempt and variant == "de":
            tail.insert(0, (preempt["t"] - 30, ""))
            tail.insert(1, (preempt["t"] - 30, "Broadcast message from root@%s on pts/3 (%s):" % (h, T(job, preempt["t"] - 30, h).strftime("%a %Y-%m-%d %H:%M:%S CET"))))
            tail.insert(2, (preempt["t"] - 30, "Wartungsfenster: System wird in 30 Sekunden neu gestartet / maintenance reboot"))
        te = max([x[0] for x in lines] + [max(exits[r][0] for r in rs if exits[r][0] < INF) if any(exits[r][0] < INF for r in rs) else 0]) + 1
        if preempt and rng.random() < 0.5:
            # the agent itself dies with the signal; bash reports it in the locale
            tail.append((te, shell_interactive(lc, rng, "SIGTERM")))
        if cause == "host_oom_kill" and h == sc["init"]["node"] and rng.random() < 0.3:
            pass
        tail.append((te + 0.1, prompt))
        if cause is None and hi == 0 and rng.random() < 0.7:
            tail[-1] = (te + 0.1, prompt + "kill %1")
            tail.append((te + 0.2, "[1]+  %-24s nvidia-smi dmon -d 30 > gpu_mon.log &" % LOC[lc]["sig"]["SIGTERM"]))
            tail.append((te + 0.3, prompt))
        if sc["init"] and h == sc["init"].get("node") and cause in ("crash_signal", "host_oom_kill") and rng.random() < 0.6:
            sg = sc.get("crash_sig", "SIGKILL")
            tail[-1] = (te + 60, prompt + "CUDA_VISIBLE_DEVICES=%d python train.py --config configs/%s.yaml --debug --resume last" % (local_of(job, sc["init"]["rank"]) if sc["init"]["rank"] is not None else 0, job["model"]))
            tail.insert(len(tail) - 1, (te + 59, "# repro single GPU"))
            tail.append((te + 400, shell_interactive(lc, rng, sg)))
            tail.append((te + 401, prompt))
            sc["repro"] = True
        node_out[h] = merge(head, *pref, lines, tail)
    # the file set
    for hi, h in enumerate(job["hosts"]):
        lines = node_out[h]
        if len(lines) > 1500:
            lines = lines[:200] + ["...", rng.choice(LOC[lc]["comments"])] + lines[-1000:]
            sc["trimmed"] = True
        if variant == "de":
            name = "knoten%d_%s_konsole.log" % (hi + 1, h) if len(job["hosts"]) > 1 else "konsole_%s.log" % h
            files[name] = (join(lines), "utf-8", rng.random() < 0.4, False)
        elif variant == "ja":
            name = "学習ログ_%s.txt" % h
            files[name] = (join(lines), "cp932", False, True)
        else:
            files["console_%s.log" % h] = (join(lines), "utf-8", False, False)
    # kernel
    for h in job["hosts"]:
        if sc["kernel"].get(h) or rng.random() < 0.3:
            fmt = "journal" if variant == "de" and rng.random() < 0.6 else "dmesgT"
            nm = ("journalctl_%s.txt" if fmt == "journal" else "dmesg_%s.txt") % h
            files[nm] = (join(kernel_text(job, sc, h, lc, fmt, rng)), "utf-8", False, False)
    for h, v in sc["nvsmi"].items():
        if v:
            files["nvidia-smi_%s.txt" % h] = (v, "utf-8", False, False)
    note = user_note(lc, rng, note_kind(cause), [])
    if sc.get("pyspy") and rng.random() < 0.6:
        note += ["", "$ py-spy dump --pid %d" % job["pids"][sc["init"]["rank"]]] + sc["pyspy"].splitlines()
        sc["pyspy_shown"] = True
    if variant == "de":
        files["Notizen.txt"] = (join(note), "utf-8", True, True)
    elif variant == "ja":
        files["メモ.txt"] = (join(note), "cp932", False, True)
    else:
        files["notes.txt"] = (join(note), "utf-8", False, False)
    return files


def r_deepspeed(d, job, sc, rng, lc, cause):
    """DeepSpeed launcher over pdsh, Russian locale; notes in CP1251."""
    streams = rank_streams(job, sc, rng)
    exits = initial_exits(job, sc)
    h0 = job["hosts"][0]
    preempt = sc.get("preempt")
    out = []
    ts = lambda t, h: "[%s]" % pylog(job, t, h)
    out.append((-20, "%s [INFO] [runner.py:463:main] Using IP address of %s for node %s" % (ts(-20, h0), job["ip"][h0], h0)))
    out.append((-20, "%s [INFO] [multinode_runner.py:80:get_cmd] Running on the following workers: %s" % (ts(-20, h0), ",".join(job["hosts"]))))
    out.append((-20, "%s [INFO] [runner.py:570:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=/home/%s/proj;  cd /home/%s/proj; %s/bin/python -u -m deepspeed.launcher.launch --world_info=eyJ... --node_rank=%%n --master_addr=%s --master_port=%d train.py --deepspeed ds_config.json" % (
        ts(-20, h0), ",".join(job["hosts"]), "ivanov", "ivanov", job["conda"], job["ip"][h0], job["port"])))
    t_user = None
    if any(exits[r][0] == INF for r in exits) and not preempt:
        t_user = max([exits[r][0] for r in exits if exits[r][0] < INF] + [sc["t_fail"]]) + rng.uniform(300, 2000)
    for hi, h in enumerate(job["hosts"]):
        rs = [r for r in range(job["world"]) if host_of(job, r) == h]
        out.append((-15, "%s: %s [INFO] [launch.py:146:main] WORLD INFO DICT: {%s}" % (h, ts(-15, h), ", ".join("'%s': [%s]" % (x, ", ".join(str(i) for i in range(job["gpn"]))) for x in job["hosts"]))))
        out.append((-15, "%s: %s [INFO] [launch.py:152:main] nnodes=%d, num_local_procs=%d, node_rank=%d" % (h, ts(-15, h), len(job["hosts"]), job["gpn"], hi)))
        out.append((-15, "%s: %s [INFO] [launch.py:163:main] dist_world_size=%d" % (h, ts(-15, h), job["world"])))
        first = min(rs, key=lambda r: (exits[r][0], r))
        tf = exits[first][0]
        if preempt:
            tp = preempt["t"]
            out.append((tp, "%s: %s [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % (h, ts(tp, h), job["pids"][rs[0]])))
            for r in rs:
                if exits[r][0] > tp:
                    exits[r] = (tp + 0.1, "sig", "SIGTERM")
                    streams[r] = cut(streams[r], tp)
            out.append((tp + 0.1, "%s: %s [ERROR] [launch.py:325:sigkill_handler] ['%s/bin/python', '-u', 'train.py', '--local_rank=0', '--deepspeed', 'ds_config.json'] exits with return code = -15" % (h, ts(tp, h), job["conda"])))
            continue
        if tf == INF:
            if t_user:
                for r in rs:
                    exits[r] = (t_user, "sig", "SIGINT")
            continue
        bad = not (exits[first][1] == "code" and exits[first][2] == 0)
        if not bad:
            continue
        tk = tf + 0.3
        for r in rs:
            out.append((tk, "%s: %s [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % (h, ts(tk, h), job["pids"][r])))
            if r != first and exits[r][0] > tk:
                exits[r] = (tk + 0.05, "sig", "SIGKILL")
                streams[r] = cut(streams[r], tk)
        out.append((tk + 0.2, "%s: %s [ERROR] [launch.py:325:sigkill_handler] ['%s/bin/python', '-u', 'train.py', '--local_rank=%d', '--deepspeed', 'ds_config.json'] exits with return code = %d" % (
            h, ts(tk, h), job["conda"], local_of(job, first), fmt_exitcode(exits[first][1], exits[first][2]))))
        out.append((tk + 0.3, "pdsh@%s: %s: ssh exited with exit code %d" % (h0, h, abs(fmt_exitcode(exits[first][1], exits[first][2])) if exits[first][1] == "code" else 1)))
    for r in range(job["world"]):
        h = host_of(job, r)
        out += [(t, "%s: %s" % (h, l)) for (t, l) in streams[r]]
    tail = []
    t_end = max([x[0] for x in out if x[0] < INF]) + 1
    if t_user:
        tail.append((t_user, "^Cpdsh@%s: interrupt (one more within 1 sec to abort)" % h0))
        tail.append((t_user, "pdsh@%s:  (^Z within 1 sec to cancel pending threads)" % h0))
        tail.append((t_user + 0.5, "^Cpdsh@%s: sending SIGTERM to ssh %s" % (h0, ",".join(job["hosts"]))))
        t_end = t_user + 2
    if preempt:
        tail.append((preempt["t"] + 0.5, shell_interactive("ru", rng, "SIGTERM")))
    if cause is None and rng.random() < 0.7:
        tail.append((t_end + 5, "$ kill %1"))
        tail.append((t_end + 6, "[1]+  %-24s watch -n 5 nvidia-smi > /dev/null" % LOC["ru"]["sig"][rng.choice(["SIGTERM", "SIGKILL"])]))
    if cause == "host_oom_kill" and rng.random() < 0.3:
        tail.append((sc["t_fail"] + 2, "%s: %s" % (sc["init"]["node"], shell_interactive("ru", rng, "SIGKILL"))))
    banner = [(-30, "$ date"), (-30, ldate("ru", T(job, -30, h0))), (-29, "$ deepspeed --hostfile hostfile train.py --deepspeed ds_config.json 2>&1 | tee train.log")]
    lines = merge(banner, out, tail)
    if len(lines) > 2000:
        lines = lines[:250] + ["...", rng.choice(LOC["ru"]["comments"]), "..."] + lines[-1200:]
        sc["trimmed"] = True
    files = {"train.log": (join(lines), "utf-8", False, False)}
    for h in job["hosts"]:
        if sc["kernel"].get(h) or rng.random() < 0.25:
            files["dmesg_%s.txt" % h] = (join(kernel_text(job, sc, h, "ru", "dmesgT", rng)), "utf-8", False, False)
    for h, v in sc["nvsmi"].items():
        if v:
            files["nvidia-smi_%s.txt" % h] = (v, "utf-8", False, False)
    note = user_note("ru", rng, note_kind(cause), [])
    if sc.get("pyspy") and rng.random() < 0.6:
        note += ["", "py-spy dump --pid %d  (%s)" % (job["pids"][sc["init"]["rank"]], sc["init"]["node"])] + sc["pyspy"].splitlines()
        sc["pyspy_shown"] = True
    files["заметки.txt"] = (join(note), "cp1251", False, True)
    return files


PS = {
    "de": ("In Zeile:1 Zeichen:1", "Es wurde ein nicht erkanntes Argument angegeben", "Die Benennung \"nvidia-smi.exe\" wurde nicht als Name eines Cmdlet, einer Funktion, einer Skriptdatei oder eines ausführbaren Programms erkannt."),
    "zh": ("所在位置 行:1 字符: 1", "", "无法将“nvidia-smi.exe”项识别为 cmdlet、函数、脚本文件或可运行程序的名称。"),
    "ja": ("発生場所 行:1 文字:1", "", "用語 'nvidia-smi.exe' は、コマンドレット、関数、スクリプト ファイル、または操作可能なプログラムの名前として認識されません。"),
    "fr": ("Au caractère Ligne:1 : 1", "", "Le terme «nvidia-smi.exe» n'est pas reconnu comme nom d'applet de commande, fonction, fichier de script ou programme exécutable."),
    "ru": ("строка:1 знак:1", "", "Имя \"nvidia-smi.exe\" не распознано как имя командлета, функции, файла сценария или выполняемой программы."),
    "es": ("En línea: 1 Carácter: 1", "", "El término 'nvidia-smi.exe' no se reconoce como nombre de un cmdlet, función, archivo de script o programa ejecutable."),
}


def r_wsl(d, job, sc, rng, lc, cause):
    """Windows 11 + WSL2, single node, 2-4 consumer GPUs; torchrun launched from
    Windows PowerShell 5.1 via wsl.exe with 2>&1 | Tee-Object -> UTF-16LE BOM + CRLF,
    stderr wrapped in PowerShell NativeCommandError records."""
    streams = rank_streams(job, sc, rng)
    exits = initial_exits(job, sc)
    h = job["hosts"][0]
    t_ctrlc = None
    if any(exits[r][0] == INF for r in exits):
        t_ctrlc = max([exits[r][0] for r in exits if exits[r][0] < INF] + [sc["t_fail"]]) + rng.uniform(300, 3000)
    lines, tk, code = torchrun_node(job, sc, h, exits, rng, "new" if job["torch_new"] else "old", t_ctrlc, "SIGINT")
    if tk is not None:
        for r in range(job["world"]):
            if exits[r][1] == "sig" and exits[r][2] in ("SIGTERM", "SIGINT"):
                streams[r] = cut(streams[r], tk + 0.01)
    body = merge(*[streams[r] for r in range(job["world"])], lines)
    ps = PS[lc]
    user = rng.choice(["admin", "lab", "Benutzer", "user"])
    hdr = ["**********************",
           "Windows PowerShell transcript start",
           "Start time: %s" % T(job, -30, h).strftime("%Y%m%d%H%M%S"),
           "Username: %s\\%s" % (h, user),
           "Machine: %s (Microsoft Windows NT 10.0.22631.0)" % h,
           "**********************"] if rng.random() < 0.4 else []
    cmd = "PS C:\\Users\\%s\\projekte> wsl -d Ubuntu-22.04 -- bash -lc \"cd ~/train && torchrun --standalone --nproc_per_node=%d train.py\" 2>&1 | Tee-Object -FilePath train_log.txt" % (user, job["gpn"])
    out = hdr + [cmd]
    # PS 5.1 wraps the first stderr line of the native command in an ErrorRecord
    wrapped = False
    for l in body:
        if not wrapped and (l.startswith("W") or l.startswith("[W") or "Warning" in l or l.startswith("Traceback") or l.startswith("WARNING")):
            out.append("wsl.exe : " + l)
            out.append(ps[0])
            out.append("+ wsl -d Ubuntu-22.04 -- bash -lc \"cd ~/train && torchrun --standalone ...")
            out.append("+ ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~")
            out.append("    + CategoryInfo          : NotSpecified: (%s:String) [], RemoteException" % l[:60])
            out.append("    + FullyQualifiedErrorId : NativeCommandError")
            out.append(" ")
            wrapped = True
        else:
            out.append(l)
    if t_ctrlc:
        out.append("^C")
    if cause is None and rng.random() < 0.5:
        out.append("PS C:\\Users\\%s\\projekte> nvidia-smi.exe -q -d PERFORMANCE" % user)
        out.append("nvidia-smi.exe : " + ps[2])
        out.append(ps[0])
        out.append("    + CategoryInfo          : ObjectNotFound: (nvidia-smi.exe:String) [], CommandNotFoundException")
        out.append("    + FullyQualifiedErrorId : CommandNotFoundException")
    out.append("PS C:\\Users\\%s\\projekte> " % user)
    if len(out) > 2000:
        out = out[:200] + ["..."] + out[-1200:]
        sc["trimmed"] = True
    files = {"train_log.txt": (join(out), "utf-16", False, True)}
    # WSL dmesg (seconds since boot only) with dxg noise
    dm = kernel_text(job, sc, h, lc, "plain", rng, noise=False)
    r2 = random.Random("%s-dxg" % sc["seed"])
    noise = ["[%12.6f] misc dxg: dxgk: dxgkio_query_adapter_info: Ioctl failed: -22" % r2.uniform(5, 100) for _ in range(r2.randint(2, 6))]
    noise += ["[%12.6f] hv_balloon: Max. dynamic memory size: %d MB" % (r2.uniform(0.5, 2), r2.choice([16000, 32000, 64000])),
              "[%12.6f] WSL (1) ERROR: CheckConnection: getaddrinfo() failed: -5" % r2.uniform(2, 8)]
    dm = sorted(noise + dm, key=lambda s: float(s[1:13]))
    files["wsl_dmesg.txt"] = (join(dm), "utf-8", False, False)
    # .wslconfig sometimes attached (host_oom relevance)
    if rng.random() < 0.5:
        files[".wslconfig"] = (join(["[wsl2]", "memory=%dGB" % rng.choice([16, 24, 32, 48]), "processors=%d" % rng.choice([8, 12, 16]), "swap=0"]), "utf-8", rng.random() < 0.5, True)
    note = user_note(lc, rng, note_kind(cause), [])
    if sc.get("pyspy") and rng.random() < 0.6:
        note += ["", "py-spy dump --pid %d" % job["pids"][sc["init"]["rank"]]] + sc["pyspy"].splitlines()
        sc["pyspy_shown"] = True
    files["Notiz.txt" if lc == "de" else "notes.txt"] = (join(note), "utf-16", False, True)
    return files


# --------------------------------------------------------------------------------------
# layouts
# --------------------------------------------------------------------------------------
LAYOUTS = {
    # name: (locale, nodes, gpn, causes, preemption kinds)
    "slurm-zh-gbknote": dict(lc="zh", nodes=[1, 2, 2, 4], gpn=[4, 8], causes=ALL, pk=["TIME LIMIT", "PREEMPTION"]),
    "slurm-es-latin1note": dict(lc="es", nodes=[1, 2, 4], gpn=[4, 8], causes=ALL, pk=["TIME LIMIT", "PREEMPTION"]),
    "slurm-fr-mojibake": dict(lc="fr", nodes=[1, 2, 4], gpn=[4, 8], causes=ALL, pk=["TIME LIMIT", "PREEMPTION"]),
    "bgloop-zh-nohup": dict(lc="zh", nodes=[1, 1, 2], gpn=[4, 8], causes=ALL, pk=["PREEMPTION", "MAINTENANCE"]),
    "torchrun-de-bom": dict(lc="de", nodes=[1, 2, 2], gpn=[2, 4, 8], causes=ALL, pk=["MAINTENANCE"]),
    "torchrun-ja-sjis": dict(lc="ja", nodes=[1, 2], gpn=[4, 8], causes=ALL, pk=["MAINTENANCE"]),
    "deepspeed-ru-cp1251": dict(lc="ru", nodes=[2, 2, 3], gpn=[4, 8], causes=ALL, pk=["PREEMPTION"]),
    "wsl2-ps-utf16": dict(lc=None, nodes=[1], gpn=[2, 2, 4], causes=["cuda_oom", "illegal_memory_access", "python_exception",
                                                                    "host_oom_kill", "crash_signal", "hang", "data_loader_stall",
                                                                    "collective_mismatch", "straggler", "unknown"], pk=[]),
}


def layout_supports(name, cause):
    if cause is None:
        return True
    if cause not in LAYOUTS[name]["causes"]:
        return False
    return True


def build_run(outdir, idx, layout, cause, seed):
    rng = random.Random("blind49|%s|%d|%s|%s" % (seed, idx, layout, cause))
    cfg = LAYOUTS[layout]
    lc = cfg["lc"] or rng.choice(["de", "zh", "ja", "fr", "ru", "es"])
    nodes = cfg["nodes"]
    if cause == "network":
        nodes = [n for n in nodes if n > 1] or [2]
    gpu = None
    if layout.startswith("wsl2"):
        gpu = rng.choice(["NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 3090", "NVIDIA RTX A6000"])
    job = make_job(rng, lc, nodes, cfg["gpn"], gpu)
    if layout.startswith("wsl2"):
        job["hosts"] = [rng.choice(["DESKTOP-", "WS-", "LAB-PC-"]) + "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789") for _ in range(7))]
        job["skew"] = {job["hosts"][0]: 0.0}
        job["ip"] = {job["hosts"][0]: "172.%d.%d.%d" % (rng.randint(16, 31), rng.randint(0, 255), rng.randint(2, 250))}
        job["agent_pid"] = {job["hosts"][0]: rng.randint(300, 3000)}
        job["conda"] = "/home/%s/miniconda3/envs/torch" % rng.choice(["lab", "user", "dev"])
        job["nccl_debug"] = False
    job["local_pydate"] = rng.random() < 0.5
    sc = scenario(job, cause, rng, {"preempt_kinds": cfg["pk"]})
    sc["seed"] = "%s-%d" % (seed, idx)
    name = "run-%03d-%s" % (idx, layout)
    d = os.path.join(outdir, name)
    if layout.startswith("slurm-"):
        files = r_slurm(d, job, sc, rng, lc, cause, lc)
    elif layout.startswith("bgloop"):
        files = r_bgloop(d, job, sc, rng, lc, cause)
    elif layout.startswith("torchrun-"):
        files = r_torchrun(d, job, sc, rng, lc, cause, lc)
    elif layout.startswith("deepspeed"):
        files = r_deepspeed(d, job, sc, rng, lc, cause)
    else:
        files = r_wsl(d, job, sc, rng, lc, cause)
    for fn in sorted(files):
        text, enc, bom, crlf = files[fn]
        write(os.path.join(d, fn), text, enc, bom, crlf)
    init = sc.get("init")
    # establishability: does the evidence that names the initiator survive in the files?
    alltext = "\n".join(files[fn][0] for fn in sorted(files))
    other = {}
    for r, tl in sc["tails"].items():
        for _, l in tl:
            other.setdefault(l, set()).add(r)

    def shown(r):
        keys = [l for _, l in sc["tails"].get(r, []) if len(l) > 30 and other.get(l) == {r}]
        return any(k in alltext for k in keys)

    kern_nodes = set(h for h in sc["kernel"] if sc["kernel"][h])
    if init:
        ir, inode = init.get("rank"), init.get("node")
        if cause in ("cuda_oom", "illegal_memory_access", "python_exception", "ecc_memory", "gpu_hardware"):
            if ir is not None and not shown(ir):
                ir = None
            if ir is None and inode not in kern_nodes:
                inode = None
        elif cause == "collective_mismatch":
            if not any(shown(r) for r in sc["tails"]) and not shown(ir):
                ir = inode = None
            elif "broadcast while others" not in sc["notes"] and not shown(ir):
                ir = inode = None
        elif cause in ("hang", "data_loader_stall"):
            others_ok = all(shown(r) for r in range(job["world"]) if r != ir and sc["tails"].get(r))
            if not (sc.get("pyspy_shown") or shown(ir) or (others_ok and not sc.get("trimmed") and not sc.get("subset"))):
                ir = None
                if inode not in kern_nodes:
                    inode = None
        elif cause == "unknown":
            pass
        init = {"rank": ir, "node": inode}
    if cause == "unknown" and not sc.get("trimmed") and not sc.get("subset"):
        r0 = sc["_init_rank"]
        init = {"rank": r0, "node": host_of(job, r0)}
    if init and init.get("rank") is None and init.get("node") is None:
        init = None
    truth = {"healthy": cause is None, "cause": cause, "initiator": init, "layout": layout,
             "notes": sc["notes"] + ("; locale=%s" % lc) + ("; log trimmed by user" if sc.get("trimmed") else "")}
    with open(os.path.join(d, "truth.json"), "w", encoding="utf-8") as f:
        json.dump(truth, f, ensure_ascii=False, indent=1)
    return truth


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--n", type=int, default=60)
    ap.add_argument("--seed", default="1")
    a = ap.parse_args(argv)
    rng = random.Random("blind49-order-%s" % a.seed)
    order = list(CAUSES)
    rng.shuffle(order)
    layouts = list(LAYOUTS)
    rot = {c: rng.randrange(len(layouts)) for c in CAUSES + ["healthy"]}
    os.makedirs(a.out, exist_ok=True)
    counts = {}
    k = 0
    for i in range(a.n):
        if i % 7 == 3:
            cause = None
        else:
            cause = order[k % len(order)]
            k += 1
        key = cause or "healthy"
        cands = [l for l in layouts if layout_supports(l, cause)]
        lay = cands[rot[key] % len(cands)]
        rot[key] += 1 + (rng.random() < 0.3)
        build_run(a.out, i, lay, cause, a.seed)
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps({k: counts[k] for k in sorted(counts)}, ensure_ascii=False))


if __name__ == "__main__":
    main()
