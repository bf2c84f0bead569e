# replio: the project's own agent. By default this checkout, under `deno run` (REPLIO_BIN overrides,
# e.g. a compiled binary: REPLIO_BIN=/path/to/dist/replio).
# The agent's HOME is a fresh folder under --out, so Deno's module cache is named explicitly
# (DENO_DIR): inside the bench's network namespace Deno could not download the npm packages again.
# DENO_NO_UPDATE_CHECK=1 keeps Deno's own update check (a DNS lookup) out of the figures.
# Tools file_read, grep, list_dir, run_command, file_write, file_edit (OpenAI function calling):
# the mock resolves their argument names from the JSON schemas replio sends.
AGENT_PROTOCOL=chat
AGENT_NOTES='replio run --base-url URL --model M --yes --output json PROMPT'
REPLIO_CHECKOUT=$(cd "$HERE/../.." && pwd)
REPLIO_DENO_DIR=${DENO_DIR:-$(deno info --json 2>/dev/null | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{console.log(JSON.parse(s).denoDir)}catch{console.log(process.env.HOME+"/.cache/deno")}})')}
# As `deno task start` runs it: modules behind a dynamic import load when first used, not all at
# start (docs/performance.md). REPLIO_LAZY= (empty) measures Deno's default, eager loading.
REPLIO_LAZY=${REPLIO_LAZY-"--unstable-lazy-dynamic-imports"}
agent_bin() {
  echo "${REPLIO_BIN:-env DENO_DIR=$REPLIO_DENO_DIR DENO_NO_UPDATE_CHECK=1 $(command -v deno) run --no-prompt -A $REPLIO_LAZY $REPLIO_CHECKOUT/main.ts}"
}
agent_version() { $(agent_bin) --version 2>/dev/null | head -1; }
agent_prepare() {
  AGENT_ENV=(OPENAI_API_KEY=sk-bench)
  # word-splitting of agent_bin is intended (it may be "env ... deno run -A main.ts")
  # shellcheck disable=SC2206
  AGENT_CMD=($(agent_bin) run --base-url "$BASE/v1" --model mock-model --yes --output json "$PROMPT")
}
