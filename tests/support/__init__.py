"""Helpers shared by the tests and the benchmarks (no tests here): fakes, builders, harnesses
for real components (Slurm, Prometheus, the sidecar, torchrun)."""
