"""Network faults: an InfiniBand NIC whose link goes down (NCCL IB completion errors)."""

from __future__ import annotations

from typing import Any

from .agent import Agent, Exit
from .expected import expect, incident
from .failures import (
    conn_closed,
    remote_error,
)
from .kernel import Kernel
from .model import DGX_H100, E24_NCCL219
from .training import make_comm, schedule, std_run_start, train
from .writer import Scenario, Stream


def sc_nic_down(sc: Scenario) -> dict[str, Any]:
    era = E24_NCCL219
    nodes = sc.nodes(["node01", "node02"], DGX_H100, ips=["10.0.0.11", "10.0.0.12"])
    procs = sc.procs(nodes, 8)
    comm = make_comm(sc, procs)
    streams = [Stream(sc, f"{p.node.name}/rank_{p.rank}.log", p, era) for p in procs]
    t_train = std_run_start(sc, streams, comm, "mixtral-8x7b pretrain (EP=8)")
    last = 3340
    sch = schedule(sc.rng, t_train, 1, last, 1104.0)
    for s in streams:
        train(s, "plain", sch, 1, last, 20, 200_000)
    t_down = sch.at(last) + 0.62
    kd = Kernel(sc, "node02/dmesg.log", nodes[1], "dmesg_T")
    kd.boot(["mlx5_core 0000:c1:00.0: firmware version: 28.39.1002",
             "mlx5_core 0000:c1:00.0: Rate limit: 127 rates are supported, range: 0Mbps to 97656Mbps"])
    kd.add(t_down, "mlx5_core 0000:c1:00.0: Port module event: module 0, Cable unplugged", 3)
    kd.add(t_down + 0.004, "mlx5_core 0000:c1:00.0 ib3: Link down", 3)
    kd.add(t_down + 143.0, "mlx5_core 0000:c1:00.0: Port module event: module 0, Cable plugged", 6)
    kd.add(t_down + 144.1, "mlx5_core 0000:c1:00.0 ib3: Link up", 6)
    kd.flush()
    k1 = Kernel(sc, "node01/dmesg.log", nodes[0], "dmesg_T")
    k1.boot()
    k1.flush()
    ib12 = "NET/IB : Got completion from peer 10.0.0.11<{port}> with error 12, opcode 48, len 32764, vendor err 129"
    first_ib = {11: 30.91, 14: 31.12}
    exits: dict[str, list[Exit]] = {"node01": [], "node02": []}
    for r, dt in first_ib.items():
        s = streams[r]
        line = ib12.format(port=47534 + r)
        s.nccl_warn(t_down + dt, "transport/net_ib.cc:1696", line)
        remote_error(s, t_down + dt + 0.05, [line])
        exits["node02"].append(Exit(s.p, t_down + dt + 0.35, -6))
    s3 = streams[3]
    flush = "NET/IB : Got completion from peer 10.0.0.12<47545> with error 5, opcode 32567, len 0, vendor err 249"
    s3.nccl_warn(t_down + 31.6, "transport/net_ib.cc:1696", flush)
    remote_error(s3, t_down + 31.65, [flush])
    exits["node01"].append(Exit(s3.p, t_down + 31.9, -6))
    for s in streams:
        p = s.p
        if p.rank in first_ib or p.rank == 3:
            continue
        if p.node is nodes[1]:
            conn_closed(s, t_down + 31.3, 3)
        else:
            tt = t_down + 31.8 + sc.rng.uniform(0.1, 0.9)
            remote_error(s, tt)
            exits["node01"].append(Exit(p, tt + 0.3, -6))
    for node in nodes:
        ag = Agent(sc, f"{node.name}/launcher.log", node, era)
        ag.banner(0.5)
        mine = [p for p in procs if p.node is node]
        ex = exits[node.name]
        dead = {e.proc.rank for e in ex}
        ag.teardown(ex, alive=[p for p in mine if p.rank not in dead])
    return expect(
        "2 nodes x 8. node02's dmesg -T shows 'mlx5_core 0000:c1:00.0: Port module event: module 0, Cable unplugged' "
        "and 'ib3: Link down' (a NIC, not a GPU); ~31 s later (IB retries exhausted) rank 11 on node02 is the first to "
        "log 'NET/IB : Got completion from peer 10.0.0.11<...> with error 12' (then rank 14). Rank 3 on node01 logs the "
        "follow-on error 5 (flush), the other ranks get ncclRemoteError or are SIGTERMed. The link flaps back up "
        "later. Network failure on node02: drain node02.",
        [incident("network", rank=11, node="node02", include=[0, 1, 2, 4, 5, 6, 7], drain=True)])
