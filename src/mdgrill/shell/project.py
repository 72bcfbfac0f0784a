"""The project's own configuration, `.mdgrill.yaml` at the repository root.

It holds what an agent must not decide by editing a spec: who owns which phase's approval and
which section's answers. A spec's front matter is written by the agent's own commands; this
file is reviewed like code (put it under CODEOWNERS). Absent file: no owners, nobody refused.

```yaml
owners:
  phases:
    requirements: [alice@example.com]
    design: ["@architects"]
  sections:
    Security: [carol@example.com]
teams:
  architects: [bob@example.com, Dan Smith]
approval: evidence              # every approval a reply the hooks captured
delegation:
  agents:                       # sub-agent types that write a phase's artifact
    requirements: [product-manager]
    design: [architect-reviewer]
    tasks: [task-planner]
  prompt_checks: true           # Phase-3 check 5 (`validate --prompt`) before every delegation
skills: [grill, checkout-domain]  # the skills this project's agents load (the manifest names each)
```

A person is matched by email or by name, case-insensitively, against `Name <email>` as
recorded; `@team` stands for every member of `teams.team`.
"""

from __future__ import annotations

import os

from mdgrill.errors import GateRefusal, InputError
from mdgrill.shell import store

CONFIG = ".mdgrill.yaml"


class Owners:
    """Which people may approve a phase or answer a section (empty: anyone)."""

    def __init__(self, phases: dict[str, list[str]], sections: dict[str, list[str]],
                 teams: dict[str, list[str]]) -> None:
        self.phases = phases
        self.sections = sections
        self.teams = teams

    def people(self, names: list[str]) -> list[str]:
        out: list[str] = []
        for name in names:
            out.extend(self.teams.get(name[1:], []) if name.startswith("@") else [name])
        return out

    def allows(self, names: list[str], who: str | None) -> bool:
        if not names:
            return True
        if not who:
            return False
        name, _, email = who.partition("<")
        keys = {name.strip().casefold(), email.rstrip(">").strip().casefold()} - {""}
        return any(p.strip().casefold() in keys for p in self.people(names))

    def require(self, what: str, names: list[str], who: str | None, verb: str) -> None:
        if self.allows(names, who):
            return
        listed = ", ".join(names)
        raise GateRefusal("NOT_AN_OWNER", f"{who or 'an unknown person'} is not an owner of "
                          f"{what} ({listed}, in {CONFIG}): `{verb}` needs one of them, run "
                          "under their own git identity (`--by` only names whom an account "
                          "relays, and never makes it an owner); under `approval: signed`, "
                          "signed with their own key",
                          details={"owners": self.people(names), "by": who})


def _names(value: object, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    raise InputError("INVALID_CONFIG", f"{CONFIG}: {where} must be a name or a list of names")


def _mapping(value: object, where: str) -> dict[str, list[str]]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError("INVALID_CONFIG", f"{CONFIG}: {where} must be a mapping")
    return {str(k): _names(v, f"{where}.{k}") for k, v in value.items()}


def config(root: str) -> dict[str, object]:
    """The repository's `.mdgrill.yaml` as a mapping (empty when there is none)."""
    path = os.path.join(root, CONFIG)
    if not os.path.lexists(path):
        return {}
    import yaml

    raw = store.read_file(path, CONFIG, root)
    try:
        data = yaml.load(raw, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))  # noqa: S506
    except yaml.YAMLError as exc:
        raise InputError("INVALID_CONFIG", f"{CONFIG} is not valid YAML: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise InputError("INVALID_CONFIG", f"{CONFIG} must be a mapping")
    return data


# The channels an approval's selection can reach mdgrill by (docs/approvals.md#channels):
# `hook` the plugin's captured reply, `elicitation` the MCP form, `terminal` `mdgrill approve`
# on the controlling terminal, `signed` a signed approval commit, `agent` the agent's own
# `confirm --reply` with nothing captured (what a project without `approval:` accepts).
CHANNELS = ("hook", "elicitation", "terminal", "signed", "agent")
# `approval: evidence` (the older word): every channel but the agent's word.
EVIDENCE_CHANNELS = ("hook", "elicitation", "terminal", "signed")


def accepted_channels(root: str) -> tuple[str, ...]:
    """The channels `.mdgrill.yaml` `approval:` accepts, in CHANNELS order: a list of them,
    one of them, `evidence` (all but `agent`), or `agent`/nothing (all)."""
    value = config(root).get("approval")
    if value is None or value == "agent":
        return CHANNELS
    if value == "evidence":
        return EVIDENCE_CHANNELS
    named = [value] if isinstance(value, str) else value
    if not isinstance(named, list) or not named or \
            not all(isinstance(v, str) and v in CHANNELS for v in named):
        raise InputError("INVALID_CONFIG", f"{CONFIG}: approval is a list of the channels the "
                         f"project accepts ({', '.join(CHANNELS)}), e.g. `approval: [terminal, "
                         "signed]`; or `evidence` (every channel but `agent`), or `agent` (the "
                         f"default: all of them); not `{value}`")
    return tuple(c for c in CHANNELS if c in named)


def requires_evidence(root: str) -> bool:
    """Whether the agent's word alone (`confirm --reply` with nothing captured) is refused:
    `approval: evidence`, or a list of channels without `agent`."""
    return "agent" not in accepted_channels(root)


class Delegation:
    """`delegation:` — which sub-agent types write which phase's artifact, and whether the
    delegated prompt must pass the prompt checks. (A plain class, not a NamedTuple: typing's
    import would cost every verb 3 ms.)"""

    __slots__ = ("agents", "prompt_checks")

    def __init__(self, agents: dict[str, list[str]], prompt_checks: bool) -> None:
        self.agents = agents
        self.prompt_checks = prompt_checks

    def phases_of(self, agent: str | None) -> list[str]:
        """The phases whose artifact this sub-agent type writes (none: not an artifact agent).

        Claude Code names a plugin's agent `plugin:agent` (`ralph-specum:product-manager`);
        a name listed without a plugin matches it from any plugin, since a plugin of another
        name can ship an agent of the same name and write the same artifact. A name listed
        with its plugin matches only that plugin's agent."""
        if not agent:
            return []
        bare = agent.rpartition(":")[2]
        return [phase for phase, names in self.agents.items()
                if agent in names or bare in names]


def delegation(root: str) -> Delegation:
    """The repository's `delegation:` settings (nothing configured: no agents, no checks)."""
    from mdgrill.formats.schema import PHASES

    value = config(root).get("delegation")
    if value is None:
        return Delegation({}, False)
    if not isinstance(value, dict):
        raise InputError("INVALID_CONFIG", f"{CONFIG}: delegation must be a mapping (agents, "
                         "prompt_checks)")
    unknown = sorted(str(k) for k in value if k not in ("agents", "prompt_checks"))
    if unknown:
        raise InputError("INVALID_CONFIG", f"{CONFIG}: delegation.{unknown[0]} is not a setting "
                         "(agents, prompt_checks)")
    agents = _mapping(value.get("agents"), "delegation.agents")
    wrong = [phase for phase in agents if phase not in PHASES]
    if wrong:
        raise InputError("INVALID_CONFIG", f"{CONFIG}: delegation.agents.{wrong[0]} is not a "
                         f"phase ({', '.join(PHASES)})")
    checks = value.get("prompt_checks", False)
    if not isinstance(checks, bool):
        raise InputError("INVALID_CONFIG", f"{CONFIG}: delegation.prompt_checks is true or false")
    return Delegation(agents, checks)


def declared_skills(root: str) -> list[str]:
    """`skills:` — the skills this project's agents load; empty when it declares none (then
    the skill-load manifest stays optional)."""
    value = config(root).get("skills")
    if value is None:
        return []
    names = _names(value, "skills")
    if any(not name.strip() for name in names):
        raise InputError("INVALID_CONFIG", f"{CONFIG}: skills names a skill by a non-empty name")
    return names


def owners(root: str) -> Owners:
    """The owners map of the repository at `root` (empty when it has no `.mdgrill.yaml`)."""
    data = config(root)
    own = data.get("owners") or {}
    if not isinstance(own, dict):
        raise InputError("INVALID_CONFIG", f"{CONFIG}: owners must be a mapping")
    return Owners(_mapping(own.get("phases"), "owners.phases"),
                  _mapping(own.get("sections"), "owners.sections"),
                  _mapping(data.get("teams"), "teams"))
