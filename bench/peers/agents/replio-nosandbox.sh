# shellcheck shell=bash
# replio with its OS sandbox off (`sandbox.mode: off` in the agent home's global config): the
# replio row but for bubblewrap, to show what the sandbox costs next to the floor.
source "$HERE/agents/replio.sh"
AGENT_NOTES='replio run … with sandbox.mode: off (global config)'
agent_prepare() {
  mkdir -p "$AGENT_HOME/.config/replio"
  printf 'sandbox:\n  mode: off\n' > "$AGENT_HOME/.config/replio/config.yaml"
  AGENT_ENV=(OPENAI_API_KEY=sk-bench)
  # shellcheck disable=SC2206
  AGENT_CMD=($(agent_bin) run --base-url "$BASE/v1" --model mock-model --yes --output json "$PROMPT")
}
