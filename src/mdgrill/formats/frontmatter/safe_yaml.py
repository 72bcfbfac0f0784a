"""Everything outside the subset, through PyYAML's safe C loader, with the limits that keep
hostile input out (aliases, depth, size, object tags)."""

from __future__ import annotations

from mdgrill.errors import InputError

# typing's import costs every verb 3 ms; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    import yaml

# ---------------------------------------------------------------------------------------
# PyYAML for everything else


MAX_DEPTH = 32
# Room for an interview at the 100,000-decision limit: `asked`, `pending` and the round's
# frontier may each list every decision.
MAX_NODES = 400_000


def load_with_pyyaml(text: str, base: int, path: str) -> dict[str, object]:
    import yaml

    loader_cls = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        node = yaml.compose(text, Loader=loader_cls)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = base + 1 + (mark.line if mark is not None else 0)
        col = 1 + (mark.column if mark is not None else 0)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError("MALFORMED_FILE",
                         f"{path}:{line}:{col}: the front matter is not valid YAML ({problem}): "
                         "fix the YAML or restore the file from git", path=path,
                         line=line) from None
    if node is None:
        return {}
    _check_nodes(node, base, path)
    if not isinstance(node, yaml.MappingNode):
        line = base + 1 + node.start_mark.line
        raise InputError("MALFORMED_FILE",
                         f"{path}:{line}:1: the front matter must be a mapping of keys "
                         "(`key: value` lines)", path=path, line=line)
    try:
        data = yaml.load(text, Loader=loader_cls)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        raise InputError("MALFORMED_FILE", f"{path}:{base + 1}:1: the front matter cannot be "
                         f"read as YAML ({exc}): fix it or restore it from git",
                         path=path, line=base + 1) from None
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        raise InputError("MALFORMED_FILE", f"{path}:{base + 1}:1: every front matter key must be "
                         "a string", path=path, line=base + 1)
    return _plain_json(data)


def _check_nodes(root: yaml.Node, base: int, path: str) -> None:
    """Refuse aliases (billion laughs), deep nesting, object tags and duplicate keys."""
    import yaml

    seen: set[int] = set()
    stack: list[tuple[yaml.Node, int]] = [(root, 0)]
    count = 0
    while stack:
        node, depth = stack.pop()
        count += 1
        line = base + 1 + node.start_mark.line
        col = 1 + node.start_mark.column
        if id(node) in seen:
            raise InputError("MALFORMED_FILE", f"{path}:{line}:{col}: YAML anchors and aliases "
                             "are not accepted in the front matter: write the value out",
                             path=path, line=line)
        seen.add(id(node))
        if depth > MAX_DEPTH or count > MAX_NODES:
            raise InputError("MALFORMED_FILE", f"{path}:{line}:{col}: the front matter nests "
                             f"deeper than {MAX_DEPTH} levels or holds more than "
                             f"{MAX_NODES:,} values: simplify it", path=path, line=line)
        if isinstance(node, yaml.MappingNode):
            keys: dict[object, int] = {}
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode):
                    key_line = base + 1 + key_node.start_mark.line
                    if key_node.value in keys:
                        raise InputError(
                            "MALFORMED_FILE",
                            f"{path}:{key_line}:{1 + key_node.start_mark.column}: the key "
                            f"`{key_node.value}` appears twice (first on line "
                            f"{keys[key_node.value]}): keep one", path=path, line=key_line)
                    keys[key_node.value] = key_line
                stack.append((key_node, depth + 1))
                stack.append((value_node, depth + 1))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((child, depth + 1) for child in node.value)


def _plain_json(value: dict[str, object]) -> dict[str, object]:
    """Dates and other YAML-only types become strings; the record holds JSON-shaped data."""
    def convert(v: object) -> object:
        if isinstance(v, dict):
            return {str(k): convert(x) for k, x in v.items()}
        if isinstance(v, list):
            return [convert(x) for x in v]
        if v is None or isinstance(v, (str, bool, int)):
            return v
        if isinstance(v, float):
            return v
        return str(v)
    return {key: convert(item) for key, item in value.items()}
