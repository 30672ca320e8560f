#!/usr/bin/env bash
# Sets up the Python peer server's virtual environment (benches/peers/python_server.py): the packages a team
# reaches for today to serve the same tools, pinned. Idempotent: nothing is done when the pins are installed.
#   bash benches/peers/setup.sh    # -> ~/.cache/beaker/peers ($BEAKER_CACHE_DIR/peers if set)
set -euo pipefail
VENV="${BEAKER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/beaker}/peers"
PINS=(numpy==2.4.6 scipy==1.17.1 sympy==1.14.0 mpmath==1.3.0 pint==0.25.3 matplotlib==3.11.2 periodictable==2.1.0 bm25s==0.3.16 chemicals==1.5.2 pandas==3.1.1 duckdb==2.0.0)
if [ -f "$VENV/PINS" ] && [ "$(cat "$VENV/PINS")" = "${PINS[*]}" ]; then
  echo "peer packages are installed in $VENV"
  exit 0
fi
python3 -m venv --clear "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "${PINS[@]}"
echo "${PINS[*]}" > "$VENV/PINS"
echo "installed the peer packages (${PINS[*]}) in $VENV"
echo "run it with: beaker bench benches/scenarios/math_rl_mix.jsonl --compare '$VENV/bin/python benches/peers/python_server.py'"
