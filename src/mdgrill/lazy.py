"""A package's names loaded from their modules on first use (PEP 562's module `__getattr__`):
a verb that needs one name of `core.machine` loads that name's module, not the package's
every module. One function, so the three packages that do it do it one way."""

from __future__ import annotations

# typing costs every verb 3 ms to import; type checkers treat this name as true
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable


def lazy_names(package: str, modules: dict[str, str], names: Iterable[str]
               ) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The `__getattr__` and `__dir__` of `package`: `modules` maps each name loaded on first
    use to the module that defines it; the name is then kept in the package, so it is looked
    up once. `names` is what `dir()` lists (the package's `__all__`)."""
    listed = sorted(names)

    def attribute(name: str) -> object:
        module = modules.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import sys

        value = getattr(__import__(module, fromlist=(name,)), name)
        setattr(sys.modules[package], name, value)
        return value

    def listing() -> list[str]:
        return list(listed)

    return attribute, listing
