#!/usr/bin/env bash
# The sidecar's cost on a GPU machine: start-up (a paste replayed three times, the rule cache cold
# then warm) and 8 ranks x 1,000 lines/s followed with the fake NVML, then with the machine's own
# (bench/bench_sidecar.py --cost-only --real-nvml), in the same run.
# Usage: bash bench/gpu/sidecar_cost.sh [SECONDS]   (needs rankdoctor's dependencies importable)
set -u
SECONDS_COST=${1:-45}
P=$(mktemp -d)/paste.log
cat >"$P" <<'LOG'
[rank3]:[E1204 10:00:01.000000000 ProcessGroupNCCL.cpp:632] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600011 milliseconds before timing out.
node07:2231:2301 [1] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB
node07:2231:2301 [1] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.0.0.8<40195> with error 12, opcode 0, len 0, vendor err 129 (Recv)
LOG
echo "cores: $(nproc)"
for i in 1 2 3; do
  s=$(date +%s.%N); python3 -m detector.cli replay "$P" --format json >/dev/null; e=$(date +%s.%N)
  echo "paste replay $i: $(awk "BEGIN{printf \"%.3f\", $e - $s}") s"
done
python3 bench/bench_sidecar.py --cost-only --real-nvml --cost-seconds "$SECONDS_COST"
