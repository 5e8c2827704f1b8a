"""The model of a job: board layouts, nodes, rank processes and PyTorch/NCCL releases (eras)."""

from __future__ import annotations

from dataclasses import dataclass

from .formats import nccl_busid

# GPU PCI addresses by NVML index for a few real board layouts.
DGX_H100 = ("0000:18:00.0", "0000:2a:00.0", "0000:3a:00.0", "0000:5d:00.0",
            "0000:9a:00.0", "0000:ab:00.0", "0000:ba:00.0", "0000:db:00.0")
HGX_B = ("0000:19:00.0", "0000:3b:00.0", "0000:4c:00.0", "0000:5d:00.0",
         "0000:9b:00.0", "0000:bb:00.0", "0000:cb:00.0", "0000:db:00.0")
DGX_A100 = ("0000:07:00.0", "0000:0f:00.0", "0000:47:00.0", "0000:4e:00.0",
            "0000:87:00.0", "0000:90:00.0", "0000:b7:00.0", "0000:bd:00.0")
WS_4GPU = ("0000:01:00.0", "0000:41:00.0", "0000:81:00.0", "0000:c1:00.0")
WS_4GPU_B = ("0000:17:00.0", "0000:65:00.0", "0000:ca:00.0", "0000:e3:00.0")


@dataclass(frozen=True)
class Node:
    name: str
    index: int
    pci: tuple[str, ...]
    ip: str
    skew: float = 0.0  # this node's wall clock minus true time, seconds
    uptime0: float = 250_000.0  # seconds since boot at scenario time 0


@dataclass(frozen=True)
class Proc:
    """One rank's process (in one attempt)."""

    rank: int
    local: int
    node: Node
    pid: int
    cuda_dev: int
    nvml_dev: int
    world: int

    @property
    def pci(self) -> str:
        return self.node.pci[self.nvml_dev]

    @property
    def busid(self) -> str:
        return nccl_busid(self.pci)


@dataclass(frozen=True)
class Era:
    """What one PyTorch/NCCL release prints."""

    torch: str
    nccl: str
    cuda: str
    site: str  # site-packages directory
    python: str  # interpreter path
    c10d_stamp: bool  # c10d log lines carry a glog time stamp
    rank_prefix: bool  # c10d lines and tracebacks carry ``[rankN]:``
    pg: str  # format of the process-group log prefix
    watchdog: str  # "2.1", "2.3", "2.4", "2.6": wording of the timeout summary lines
    agent: str  # "bracket" (torch 2.1-2.3) or "glog" (2.4+)
    init: str  # "comm", "initrank", "config": wording of NCCL's Init COMPLETE line

    def pgp(self, rank: int) -> str:
        return self.pg.format(r=rank)

    @property
    def nccl_short(self) -> str:
        return self.nccl.split("+")[0]


E21 = Era("2.1.2", "2.18.6+cuda12.1", "12.1", "/opt/conda/lib/python3.10/site-packages", "/opt/conda/bin/python",
          False, False, "[Rank {r}]", "2.1", "bracket", "comm")
E22 = Era("2.2.2", "2.19.3+cuda12.1", "12.1", "/usr/local/lib/python3.10/dist-packages", "/usr/bin/python3",
          False, True, "[Rank {r}]", "2.3", "bracket", "initrank")
E23 = Era("2.3.1", "2.20.5+cuda12.4", "12.4", "/opt/conda/lib/python3.10/site-packages", "/opt/conda/bin/python",
          False, True, "[PG 0 Rank {r}]", "2.3", "bracket", "initrank")
E24 = Era("2.4.1", "2.20.5+cuda12.4", "12.4", "/usr/local/lib/python3.10/dist-packages", "/usr/bin/python3",
          True, True, "[PG 0 (default_pg) Rank {r}]", "2.4", "glog", "initrank")
E25 = Era("2.5.1", "2.21.5+cuda12.4", "12.4", "/usr/local/lib/python3.11/site-packages", "/usr/local/bin/python3.11",
          True, True, "[PG ID 0 PG GUID 0(default_pg) Rank {r}]", "2.4", "glog", "initrank")
E26 = Era("2.6.0", "2.21.5+cuda12.6", "12.6", "/opt/venv/lib/python3.12/site-packages", "/opt/venv/bin/python",
          True, True, "[PG ID 0 PG GUID 0(default_pg) Rank {r}]", "2.6", "glog", "initrank")
E27 = Era("2.7.1", "2.26.2+cuda12.8", "12.8", "/usr/local/lib/python3.12/dist-packages", "/usr/bin/python3",
          True, True, "[PG ID 0 PG GUID 0(default_pg) Rank {r}]", "2.6", "glog", "config")
# torch 2.4 run against a pinned older NCCL (nvidia-nccl-cu12==2.19.3): old NET/IB wording
E24_NCCL219 = Era("2.4.1", "2.19.3+cuda12.4", "12.4", "/usr/local/lib/python3.10/dist-packages", "/usr/bin/python3",
                  True, True, "[PG 0 (default_pg) Rank {r}]", "2.4", "glog", "initrank")
