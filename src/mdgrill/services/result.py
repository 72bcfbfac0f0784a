"""`Result`: what one operation of `services/` did, as the CLI's `--json` prints it."""

from __future__ import annotations

__all__ = ["Result"]


class Result:
    """What one operation did: its fields as the CLI's `--json` prints them (without `ok`)."""

    __slots__ = ("verb", "data", "already_recorded")

    def __init__(self, verb: str, data: dict[str, object], *,
                 already_recorded: bool = False) -> None:
        self.verb = verb
        self.data = data
        # an approval found recorded before, whose failed commit this call made again
        self.already_recorded = already_recorded

    def __getitem__(self, key: str) -> object:
        return self.data[key]

    def get(self, key: str, default: object = None) -> object:
        return self.data.get(key, default)

    @property
    def status(self) -> str | None:
        """The interview's status after the operation, when it names one."""
        value = self.data.get("status")
        return str(value) if value is not None else None

    @property
    def pending(self) -> list[str]:
        """The decisions asked and not yet answered, when the operation reports them."""
        value = self.data.get("pending")
        return [str(v) for v in value] if isinstance(value, list) else []

    @property
    def warnings(self) -> list[str]:
        value = self.data.get("warnings")
        return [str(v) for v in value] if isinstance(value, list) else []

    def to_json(self) -> dict[str, object]:
        return dict(self.data)

    def __repr__(self) -> str:
        return f"Result({self.verb!r}, {self.data!r})"
