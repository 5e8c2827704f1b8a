"""Tiny discrete-event resolver: given the culprit's fate and the peers'
pending reactions (watchdog timeouts, NCCL errors, ...), work out who dies
when, taking into account how the launcher tears a job down (torchrun agent
per node, srun --kill-on-bad-exit, mpirun abort, k8s operator, ...)."""


class Policy(object):
    def __init__(self, agent_per_node=True, kill_all=False, kill_delay=(0.5, 3.0),
                 kill_code=-15, kill_all_via_agent=False, agent_delay=(0.1, 5.0),
                 kill_all_delay=(2.0, 15.0), kill_all_on_signal_only=False):
        self.agent_per_node = agent_per_node        # torchrun / deepspeed launcher / composer
        self.kill_all = kill_all                    # mpirun, srun -K, ray, jax coordinator
        self.kill_delay = kill_delay
        self.kill_code = kill_code
        self.kill_all_via_agent = kill_all_via_agent  # k8s operator deletes pods -> agents get SIGTERM
        self.agent_delay = agent_delay
        self.kill_all_delay = kill_all_delay


def schedule(job, r, t, cb, note=""):
    job.pending.append((t, r, cb, note))


def resolve(job, pol):
    """Process pending reactions in time order. Fills job.end, job.nodeev and
    job.jobkill. Callbacks return (t_death, code) or None (rank survives)."""
    rng = job.rng
    job.nodeev = {}
    for nd in job.nodes:
        job.nodeev[nd.idx] = dict(failures=[], t_detect=None, killed=[], sigterm=None)
    job.jobkill = None
    events = []   # (t, kind, r, payload)
    for (t, r, code) in [(v[0], k, v[1]) for k, v in sorted(job.end.items())]:
        events.append((t, 0, "death", r, code))
    for (t, r, cb, note) in job.pending:
        events.append((t, 1, "react", r, cb))
    job.pending = []
    dead = {}

    def push(ev):
        events.append(ev)

    while events:
        events.sort(key=lambda e: (e[0], e[1], e[3]))
        ev = events.pop(0)
        t, _, kind, r, payload = ev
        if kind == "react":
            if r in dead:
                continue
            res = payload(job, r, t)
            if res is None:
                continue
            if len(res) == 3:
                td, code, fin = res
            else:
                (td, code), fin = res, None
            push((td, 0, "death", r, (code, fin)))
            dead[r] = "pending"
            continue
        if kind == "kill":
            if r in dead and dead[r] != "pending":
                continue
            if r in dead and dead[r] == "pending":
                # a death already scheduled; keep whichever is first
                mine = [e for e in events if e[2] == "death" and e[3] == r]
                if mine and mine[0][0] <= t:
                    continue
                for e in mine:
                    events.remove(e)
            code = payload
            dead[r] = (t, code)
            job.end[r] = (t, code)
            job.killed_by[r] = "launcher"
            nidx = job.ranks[r].node
            job.nodeev[nidx]["killed"].append((t, r, code))
            continue
        if kind == "death":
            if r in dead and dead[r] != "pending":
                continue
            if isinstance(payload, tuple):
                payload, fin = payload
                if fin is not None:
                    fin(job, r, t)
            dead[r] = (t, payload)
            job.end[r] = (t, payload)
            nidx = job.ranks[r].node
            ne = job.nodeev[nidx]
            ne["failures"].append((t, r, payload))
            if pol.agent_per_node and ne["t_detect"] is None and payload != 0:
                td = t + rng.uniform(*pol.agent_delay)
                ne["t_detect"] = td
                for rk in job.ranks_on(nidx):
                    if rk.r not in dead or dead[rk.r] == "pending":
                        push((td + rng.uniform(0.01, 0.6), 2, "kill", rk.r, -15))
                if pol.kill_all_via_agent and job.jobkill is None:
                    tk = td + rng.uniform(*pol.kill_all_delay)
                    job.jobkill = (tk, nidx)
                    for nd in job.nodes:
                        if nd.idx == nidx:
                            continue
                        ne2 = job.nodeev[nd.idx]
                        if ne2["t_detect"] is None:
                            ne2["sigterm"] = tk + rng.uniform(0.0, 1.5)
                            for rk in job.ranks_on(nd.idx):
                                push((ne2["sigterm"] + rng.uniform(0.05, 0.8), 2, "kill", rk.r, -15))
            if pol.kill_all and job.jobkill is None and payload != 0:
                tk = t + rng.uniform(*pol.kill_delay)
                job.jobkill = (tk, nidx)
                for rk in job.ranks:
                    if rk.r not in dead or dead[rk.r] == "pending":
                        push((tk + rng.uniform(0.0, 0.5), 2, "kill", rk.r, pol.kill_code))
            continue
    return job.end
