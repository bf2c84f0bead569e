#!/usr/bin/env bash
# `deno task bench:peers`: replio (with and without its OS sandbox) side by side with the floor
# (`refagent`, a 150-line Node loop)
# and, when PEERS names an npm prefix holding them, the other agent CLIs (bench/peers/README.md).
# Extra arguments go to bench/peers/run.sh (e.g. --reps 5). The summary is copied to
# bench/results/peers.md, which `deno run -A bench/run_all.ts --assemble` puts in
# docs/performance.md.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export DENO_NO_UPDATE_CHECK=1
out=${BENCH_OUT:-$here/results/peers-runs}
agents=(replio replio-nosandbox refagent)
if [[ -n ${PEERS:-} ]]; then
  for peer in codex opencode qwen gemini claude; do
    case $peer in
      codex) bin=codex ;; opencode) bin=opencode ;; qwen) bin=qwen ;; gemini) bin=gemini ;;
      claude) bin=claude ;;
    esac
    [[ -x $PEERS/bin/$bin ]] && agents+=("$peer")
  done
else
  # run.sh wants a peers prefix even when no peer runs.
  PEERS=$(mktemp -d)
  trap 'rm -rf "$PEERS"' EXIT
fi
export PEERS
mkdir -p "$out"
args=(--reps 3 --startup-runs 10 "$@")
"$here/peers/run.sh" --out "$out" "${args[@]}" "${agents[@]}" | tee "$out/last-stdout.txt"
summary=$(find "$out" -name summary.md -printf '%T@ %p\n' | sort -n | tail -n 1 | cut -d' ' -f2-)
{
  echo "# Side by side with the floor and the peers"
  echo
  echo "\`deno task bench:peers\` (bench/peers_bench.sh → bench/peers/run.sh ${args[*]} ${agents[*]}),"
  echo "$(date -u +%Y-%m-%d) on $(nproc) cores; compare rows only within this one run."
  echo
  cat "$summary"
} > "$here/results/peers.md"
echo "wrote bench/results/peers.md"
