"""A node's kernel log (dmesg, dmesg -T, journal, syslog, /dev/kmsg) and NVRM Xid lines."""

from __future__ import annotations

from collections.abc import Sequence

from .formats import pci_short, ts_ctime, ts_journal, ts_syslog
from .model import Node
from .writer import Scenario


class Kernel:
    """One node's kernel log in one of the forms the engine reads."""

    def __init__(self, sc: Scenario, path: str, node: Node, style: str, driver: str = "550.90.07") -> None:
        self.sc, self.path, self.node, self.style, self.driver = sc, path, node, style, driver
        self.items: list[tuple[float, int, str]] = []
        self._seq = sc.rng.randint(1500, 4000)

    def add(self, t: float, msg: str, prio: int = 4) -> None:
        self.items.append((t, prio, msg))

    def boot(self, extra: Sequence[str] = ()) -> None:
        t0 = -self.node.uptime0 + self.sc.rng.uniform(0.0, 0.9)
        self.add(t0 + 0.0, "Linux version 5.15.0-122-generic (buildd@lcy02-amd64-034) (gcc (Ubuntu 11.4.0-1ubuntu1~22.04) "
                 "11.4.0, GNU ld (GNU Binutils for Ubuntu) 2.38) #132-Ubuntu SMP Thu Aug 29 13:45:52 UTC 2024", 5)
        self.add(t0 + 18.2, f"NVRM: loading NVIDIA UNIX x86_64 Kernel Module  {self.driver}  Fri May 31 09:35:42 UTC 2024",
                 6)
        self.add(t0 + 18.3, "nvidia-nvlink: Nvlink Core is being initialized, major device number 509", 6)
        self.add(t0 + 18.9, f"nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  {self.driver}"
                 "  Fri May 31 09:31:04 UTC 2024", 6)
        self.add(t0 + 21.4, "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Opts: (null). "
                 "Quota mode: none.", 6)
        self.add(t0 + 24.0, "IPv6: ADDRCONF(NETDEV_CHANGE): ib0: link becomes ready", 6)
        for i, line in enumerate(extra):
            self.add(t0 + 30.0 + i, line, 6)
        self.add(-3100.0 - self.sc.rng.uniform(0.0, 900.0), "perf: interrupt took too long (2503 > 2500), lowering kernel.perf_event_max_sample_rate to "
                 "79750", 6)

    def flush(self) -> None:
        lines = []
        for t, prio, msg in sorted(self.items, key=lambda x: x[0]):
            mono = self.node.uptime0 + t
            dt = self.sc.wall(self.node, t)
            if self.style == "dmesg":
                whole = int(mono)
                lines.append((t, f"[{whole:5d}.{round((mono - whole) * 1e6) % 1_000_000:06d}] {msg}"))
            elif self.style == "dmesg_T":
                lines.append((t, f"[{ts_ctime(dt)}] {msg}"))
            elif self.style == "journal":
                lines.append((t, f"{ts_journal(dt)} {self.node.name} kernel: {msg}"))
            elif self.style == "syslog":
                lines.append((t, f"{ts_syslog(dt)} {self.node.name} kernel: {msg}"))
            elif self.style == "kmsg":
                lines.append((t, f"{prio},{self._seq},{round(mono * 1e6)},-;{msg}"))
                self._seq += 1
            else:
                raise ValueError(self.style)
        for t, line in lines:
            self.sc.logs.add(self.path, t, [line])


def gpu_id_lines(sc: Scenario, pci: str) -> list[str]:
    return [f"NVRM: GPU at PCI:{pci_short(pci)}: {sc.uuid()}",
            f"NVRM: GPU Board Serial Number: 1652{sc.rng.randint(10**8, 10**9 - 1)}"]


def xid(pci: str, code: int, body: str, pid: int | None = None, name: str = "python3") -> str:
    who = f"pid={pid}, name={name}, " if pid is not None else "pid='<unknown>', name=<unknown>, "
    return f"NVRM: Xid (PCI:{pci_short(pci)}): {code}, {who}{body}"
