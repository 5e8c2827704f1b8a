#!/usr/bin/env bash
# Install the Debian packages used by the real-component tests (Prometheus and promtool, Slurm,
# munge, Chromium for the HTML report's browser test) when they are missing. Needs root and
# apt-get; elsewhere it says what is missing and carries on (those tests then skip with the reason).
set -u
need=()
command -v prometheus >/dev/null 2>&1 || need+=(prometheus)
command -v slurmctld >/dev/null 2>&1 || need+=(slurmctld)
command -v slurmd >/dev/null 2>&1 || need+=(slurmd)
command -v scontrol >/dev/null 2>&1 || need+=(slurm-client)
command -v munged >/dev/null 2>&1 || need+=(munge)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "setup-system: missing ${need[*]} (needs root and apt-get); the Slurm/Prometheus/browser tests will skip" >&2
  exit 0
fi
echo "setup-system: installing ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
