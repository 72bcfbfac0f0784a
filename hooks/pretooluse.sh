#!/bin/sh
# PreToolUse for Agent|Task calls. Fails closed: a delegation that carries an mdgrill gate
# block is denied when mdgrill is not installed, and any call is denied when mdgrill failed
# (it also gates calls without the block: artifact agents, prompts naming a spec). Without
# mdgrill, an unmarked call passes untouched. mdgrill keeps its own time budget (20 s)
# under the host's 30 s timeout and ends itself a few seconds after it, which lands in the
# `||` branch below.
event=$(cat)
deny() {
  printf '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "%s"}}\n' "$1"
  exit 0
}
# The marker, or a JSON escape of one of its characters (`\u005b`, `\u004d`...): the event
# is only decoded by mdgrill, so a spelling that might hide the marker counts as gated.
gated() { printf '%s' "$event" | grep -q -e 'MDGRILL_PHASE_GATE' -e '\\u00[45][0-9A-Fa-f]'; }
if ! command -v mdgrill >/dev/null 2>&1; then
  gated && deny "mdgrill is not installed, so this gated delegation cannot be checked: install it from the plugin's folder so that mdgrill is on PATH (pipx install '${CLAUDE_PLUGIN_ROOT:-<the mdgrill clone>}[mcp,lsp]'), then try again"
  exit 0
fi
answer=$(printf '%s' "$event" | mdgrill hook pretooluse) || {
  deny "mdgrill hook pretooluse failed, so this sub-agent call is denied (mdgrill could not check whether it delegates a spec's work): run mdgrill check-delegation by hand to see why"
}
printf '%s' "$answer"
exit 0
