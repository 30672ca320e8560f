#!/usr/bin/env bash
# Every `beaker bench` figure of docs/PERFORMANCE.md, in one command: Beaker against the Python peer on each
# scenario, the three transports, scaling from one worker to all cores, memory per in-flight call, bursts and
# cold starts. Writes Markdown (each table is `beaker bench --markdown`'s own output) to stdout.
#   bash benches/peers/setup.sh && cargo build --profile bench --bin beaker
#   bash benches/bench_all.sh > benches/runs/$(date +%F)/bench_all.md
set -euo pipefail
cd "$(dirname "$0")/.."
BEAKER="${BEAKER:-${CARGO_TARGET_DIR:-target}/release/beaker}"
PEER_PY="${BEAKER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/beaker}/peers/bin/python"
PEER="$PEER_PY benches/peers/python_server.py"
CORES="$(nproc)"
S=benches/scenarios
b() { "$BEAKER" bench --quiet --markdown "$@"; echo; }
h() { printf '### %s\n\n' "$1"; }

echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); $(date -u +%F)."
echo
h "Beaker (A) against the Python peer (B), alternating rounds"
b $S/calculator.jsonl -n 4000 --compare "$PEER" -- --no-python
b $S/math_rl_mix.jsonl -n 4000 --compare "$PEER" -- --no-python
b $S/plots.jsonl -n 200 --compare "$PEER" -- --no-python
b $S/python_scientific.jsonl -c 4 -n 60 --warmup 20 --rounds 2 --compare "$PEER"

h "Pipelined stdio throughput against the in-run reference (benches/pipelined.py)"
echo '```'
python3 benches/pipelined.py "$BEAKER" --rounds 5 --min-ratio 0.5
echo '```'
echo

h "Transports: the same scenario over JSON Lines, MCP and HTTP"
for t in jsonl mcp http; do b $S/math_rl_mix.jsonl -n 20000 --transport "$t" -- --no-python; done

h "Scaling: one worker, then one per core ($CORES)"
for w in 1 "$CORES"; do
  b $S/math_rl_mix.jsonl -n 20000 -c 16 -- --no-python --workers "$w"
  b $S/math_rl_mix.jsonl -n 2000 -c 16 --server "$PEER --workers $w"
  b $S/python_scientific.jsonl -n 200 -c 8 -- --sandbox-workers "$w"
done

h "Memory per in-flight call: peak RSS with 1 and with 64 Python calls in flight"
b $S/python_scientific.jsonl -n 100 -c 1
b $S/python_scientific.jsonl -n 640 -c 64
b $S/python_scientific.jsonl -n 64 -c 64 --server "$PEER"

h "Bursts: a generation step's calls arriving at once"
b $S/math_rl_mix.jsonl -n 25600 --burst 256 -- --no-python
b $S/python_scientific.jsonl -n 320 --burst 32

h "Cold start: from starting the server to its first answer (one call, no warm-up)"
b $S/calculator.jsonl -n 1 --warmup 0 -c 1 -- --no-python
b $S/python_scientific.jsonl -n 1 --warmup 0 -c 1
b $S/calculator.jsonl -n 1 --warmup 0 -c 1 --server "$PEER"
