#!/usr/bin/env bash
# The device checks, as one script for a machine with one NVIDIA GPU (see bench/gpu/README.md):
# real NCCL jobs under torchrun with real GPU faults, each followed live by the sidecar
# (rank logs, /dev/kmsg, NVML), then replayed from what it left. Writes everything under $OUT.
# Usage: OUT=/some/dir bash bench/gpu/h200_check.sh   (needs torch, CuPy and rankdoctor's deps)
set -u
OUT=${OUT:-/tmp/h200-out}
W=${W:-/tmp/h200}
RD="python3 -m detector.cli"
JOB=${JOB:-bench/gpu/train_gpu.py}
mkdir -p "$OUT" "$W"
S="$OUT/summary.txt"
say() { echo "== $*" | tee -a "$S"; }
now() { date +%s.%N; }

say "machine"
{ nvidia-smi --query-gpu=name,driver_version,pci.bus_id,memory.total --format=csv; uname -r
  python3 -c 'import torch,cupy;print("torch",torch.__version__,"cuda",torch.version.cuda,"nccl",torch.cuda.nccl.version(),"cupy",cupy.__version__)'
} 2>&1 | tee -a "$S"
say "rankdoctor check"
$RD check --kmsg /dev/kmsg --no-metrics --logs "$W" --state "$W/.check" 2>&1 | tee -a "$S"

# run NAME FAULT NPROC EXTRA...: one torchrun job under the sidecar
run() {
  local name=$1 fault=$2 nproc=$3; shift 3
  local run="$W/$name" side="$W/side-$name"
  mkdir -p "$run" "$side"
  say "job $name: fault $fault, $nproc rank(s) $*"
  $RD watch --logs "$run" --kmsg /dev/kmsg --state "$side/state" --incidents "$side/incidents.jsonl" \
      --no-metrics --node "$(hostname)" --hang-floor 8 --settle 0.5 >"$side/sidecar.out" 2>"$side/sidecar.err" &
  local sp=$!
  sleep 4
  local dm0; dm0=$(dmesg | wc -l)
  local t0; t0=$(now)
  timeout 150 torchrun --standalone --nproc-per-node "$nproc" --log-dir "$run/torchrun" --redirects 3 \
      "$JOB" --steps 40 --fault "$fault" --fault-step 12 "$@" >"$run/console.log" 2>&1 &
  local jp=$!
  local first=""
  while kill -0 $jp 2>/dev/null; do
    if [ -z "$first" ] && [ -s "$side/incidents.jsonl" ]; then first=$(now); fi
    if [ "$fault" = spin ] && [ ! -e "$side/snapshot.json" ] && grep -rqs "spin kernel launched" "$run/torchrun"; then
      sleep 6; $RD snapshot --logs "$run" --format json >"$side/snapshot.json" 2>"$side/snapshot.err"
    fi
    sleep 0.1
  done
  wait $jp; local rc=$?
  local t1; t1=$(now)
  for _ in $(seq 1 50); do [ -n "$first" ] && break; [ -s "$side/incidents.jsonl" ] && first=$(now) && break; sleep 0.1; done
  ps -o rss=,times= -p $sp >"$side/sidecar.cost" 2>/dev/null
  kill -TERM $sp; wait $sp 2>/dev/null
  dmesg -T | tail -n +$((dm0 + 1)) >"$run/dmesg.txt"
  [ -s "$run/dmesg.txt" ] || rm -f "$run/dmesg.txt"
  echo "job rc $rc; job wall $(awk "BEGIN{print $t1 - $t0}") s; first incident at +$( [ -n "$first" ] && awk "BEGIN{print $first - $t0}") s; sidecar rss_kb,cpu_s: $(cat "$side/sidecar.cost")" | tee -a "$S"
  grep -rh -m3 -E "fault |launched at|Error|error" "$run/torchrun" 2>/dev/null | head -5 | tee -a "$S"
  head -c 1500 "$side/incidents.jsonl" | tee -a "$S"; echo | tee -a "$S"
  ls -R "$run" | head -30 >>"$S"
  $RD replay "$run" >"$side/replay.txt" 2>&1; tail -n 25 "$side/replay.txt" | tee -a "$S"
  $RD replay "$run" --format json >"$side/replay.json" 2>/dev/null
}

run illegal illegal 1
mkdir -p "$W/spin/fr"
export TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1
export TORCH_FR_DUMP_TEMP_FILE="$W/spin/fr/nccl_trace_rank_" TORCH_NCCL_DEBUG_INFO_TEMP_FILE="$W/spin/fr/nccl_trace_rank_"
run spin spin 1 --pg-timeout 20 --spin-s 60
unset TORCH_NCCL_TRACE_BUFFER_SIZE TORCH_NCCL_DUMP_ON_TIMEOUT TORCH_FR_DUMP_TEMP_FILE TORCH_NCCL_DEBUG_INFO_TEMP_FILE
run oom oom 1
NCCL_DEBUG=WARN run samegpu none 2 --same-device
run healthy none 1 --steps 30

say "files"
tar czf "$OUT/runs.tgz" -C "$W" . 2>&1 | tail -2
ls -la "$OUT" | tee -a "$S"
