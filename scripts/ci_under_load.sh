#!/usr/bin/env bash
# CI on a busy machine (issue 23): runs `.ci/run` N times, each in a fresh clone of this
# repository's HEAD, while busy loops (by default twice the cores) compete for every core.
# A test that depends on how fast the machine is shows up here as a red run.
#
#   scripts/ci_under_load.sh [-n RUNS] [--loops K] [--only FILE...] [--keep] [--dry-run]
#
#   -n RUNS       how many runs (default 5)
#   --loops K     busy loops during each run (default: twice `nproc`)
#   --only FILE…  run `deno task test FILE…` in the clone instead of the whole `.ci/run`
#                 (e.g. --only tests/plugin_worker_test.ts); must come last
#   --keep        keep each clone (default: removed after its run; logs are always kept)
#   --dry-run     clone once and start and stop the loops, but run nothing: checks the script
#
# It clones HEAD: commit what you want measured. Each run's output goes to a log in the results
# folder it prints; the last line is `R runs: G green, B red`, and the exit code is 1 if any run
# was red.
set -uo pipefail

runs=5
loops=$(($(nproc) * 2))
only=()
keep=0
dry=0
while (($#)); do
  case $1 in
    -n) runs=${2:?-n needs a number}; shift 2 ;;
    --loops) loops=${2:?--loops needs a number}; shift 2 ;;
    --only) shift; only=("$@"); break ;;
    --keep) keep=1; shift ;;
    --dry-run) dry=1; shift ;;
    -h | --help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "ci_under_load: unknown argument \"$1\": see --help" >&2; exit 2 ;;
  esac
done
if ! [[ $runs =~ ^[1-9][0-9]*$ && $loops =~ ^[0-9]+$ ]]; then
  echo "ci_under_load: -n and --loops take whole numbers (-n at least 1): see --help" >&2
  exit 2
fi

repo="$(cd "$(dirname "$0")/.." && pwd)"
results="$(mktemp -d "${TMPDIR:-/tmp}/ci_under_load.XXXXXX")"
busy=""
running=""

stop_run() {
  # The run was started in a process group of its own: end all of it, its test processes too.
  if [[ -n $running ]]; then
    # Just started, setsid may not have run yet: then the group is not there, but the pid is.
    kill -TERM -- "-$running" 2>/dev/null || kill -TERM "$running" 2>/dev/null
  fi
  running=""
}

stop_loops() {
  # Only the loops this script started: their own process group. KILL, as a loop holds nothing
  # to clean up, and a TERM landing while bash forks the next loop can be missed by it.
  if [[ -n $busy ]]; then
    kill -KILL -- "-$busy" 2>/dev/null
    wait "$busy" 2>/dev/null
  fi
  busy=""
}
trap 'stop_run; stop_loops' EXIT
trap 'stop_run; stop_loops; exit 130' INT TERM

start_loops() {
  ((loops)) || return 0
  # One process group holding every loop, so one signal ends them all.
  setsid bash -c 'for ((i = 0; i < $1; i++)); do (while :; do :; done) & done; wait' \
    loops "$loops" &
  busy=$!
  # Until setsid has made it a group leader, a signal to the group would reach nothing.
  # (A script has no job control, so its background child is no group leader and setsid does
  # not fork; should it ever, the pid is gone and the wait ends.)
  until [[ "$(ps -o pgid= -p "$busy" 2>/dev/null | tr -d ' ')" == "$busy" ]]; do
    kill -0 "$busy" 2>/dev/null || break
    sleep 0.01
  done
}

commit="$(git -C "$repo" rev-parse --short HEAD)"
echo "ci_under_load: $runs run(s) of ${only[*]:-.ci/run} at $commit, $loops busy loops on $(nproc) cores; logs in $results"
green=0
red=0
for ((run = 1; run <= runs; run++)); do
  clone="$results/clone-$run"
  log="$results/run-$run.log"
  # A clone, not a worktree: nothing of this checkout's caches, .replio/ or untracked files.
  # Every run at the commit named above, however the checkout moves on meanwhile.
  if ! { git clone --quiet --no-hardlinks "$repo" "$clone" &&
    git -C "$clone" checkout --quiet --detach "$commit"; } >"$log" 2>&1; then
    echo "run $run/$runs: could not clone $repo at $commit (see $log)"
    red=$((red + 1))
    continue
  fi
  start_loops
  if ((dry)); then
    echo "run $run/$runs: dry run: would run ${only[*]:+deno task test }${only[*]:-.ci/run} in $clone with $loops busy loops"
    status=0
    summary="dry run"
  else
    started=$SECONDS
    if ((${#only[@]})); then
      command=(env NO_COLOR=1 RUST_BACKTRACE=0 deno task test "${only[@]}")
    else
      command=(bash .ci/run)
    fi
    # In the background and its own process group, so Ctrl-C here ends it at once, all of it.
    (cd "$clone" && exec setsid "${command[@]}") >>"$log" 2>&1 &
    running=$!
    wait "$running"
    status=$?
    running=""
    summary="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)"
    summary="${summary:-no summary line} in $((SECONDS - started)) s"
  fi
  stop_loops
  if ((status == 0)); then
    green=$((green + 1))
    echo "run $run/$runs: green: $summary"
  else
    red=$((red + 1))
    echo "run $run/$runs: red (exit $status): $summary; failed:"
    grep -E ' \.\.\. FAILED' "$log" | sed 's/^/  /' | sort -u
  fi
  ((keep)) || rm -rf "$clone"
  ((dry)) && break
done
echo "$((green + red)) runs: $green green, $red red"
((red == 0))
