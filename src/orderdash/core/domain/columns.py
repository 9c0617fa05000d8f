"""Which columns of a table fit a width, and how wide each is (k9s style): the least needed go
first, the ones that must stay shrink last. Plain arithmetic, so a table can place every cell's
text in exactly its column's cells (fitted, never cropped by the table).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: `drop` of a column that always stays.
KEEP = 0


@dataclass(frozen=True, eq=False, repr=False)
class ColumnSpec:
    """One table column and how it gives way when the table is too narrow."""

    key: str
    label: str
    #: KEEP (never dropped), else the order of dropping: the highest goes first.
    drop: int = KEEP
    #: The narrowest the column may become when the kept ones alone are too wide (its cells are
    #: then fitted to it: rounded, shortened or cut with a mark). None: it never shrinks.
    min_width: int | None = None
    #: The widest it gets however long its cells (they are fitted to it). None: no cap.
    max_width: int | None = None


def fit_columns(
    specs: Sequence[ColumnSpec],
    natural: Mapping[str, int],
    available: int,
    *,
    padding: int = 2,
    labels: Mapping[str, str] | None = None,
) -> dict[str, int]:
    """The columns shown (in `specs` order) and their content widths, for `available` cells in
    all (each column takes `padding` more). `natural`: the widest text of each column's cells
    (the label counts too, `labels` overriding `spec.label`, e.g. with a sort mark)."""
    labels = labels or {}
    widths = {
        spec.key: max(
            min(natural.get(spec.key, 0), spec.max_width or natural.get(spec.key, 0)),
            len(labels.get(spec.key, spec.label)),
        )
        for spec in specs
    }
    full = dict(widths)
    uncapped = {
        spec.key: max(natural.get(spec.key, 0), len(labels.get(spec.key, spec.label)))
        for spec in specs
    }

    def total() -> int:
        return sum(width + padding for width in widths.values())

    # the most droppable first (among equals the rightmost); one that may shrink does so
    # rather than go, when shrinking is enough
    droppable = sorted(
        (spec for spec in specs if spec.drop != KEEP),
        key=lambda spec: (spec.drop, specs.index(spec)),
        reverse=True,
    )
    dropped = []
    for spec in droppable:
        excess = total() - available
        if excess <= 0:
            break
        spare = widths[spec.key] - min(spec.min_width or widths[spec.key], widths[spec.key])
        if spare >= excess:
            widths[spec.key] -= excess
        else:
            dropped.append(spec)
            del widths[spec.key]
    # what room is left takes back a dropped column that fits, the most needed first
    for spec in reversed(dropped):
        if total() + full[spec.key] + padding <= available:
            widths[spec.key] = full[spec.key]
    widths = {spec.key: widths[spec.key] for spec in specs if spec.key in widths}
    # still too wide: the shrinkable ones give up what they must, the one with most to spare first
    floors = {
        spec.key: min(spec.min_width, widths[spec.key])
        for spec in specs
        if spec.key in widths and spec.min_width is not None
    }
    for key in sorted(floors, key=lambda key: widths[key] - floors[key], reverse=True):
        excess = total() - available
        if excess <= 0:
            break
        widths[key] -= min(excess, widths[key] - floors[key])
    # room to spare: a capped column shows more of its longest cell
    for spec in specs:
        spare = available - total()
        if spare <= 0:
            break
        if spec.key in widths and uncapped[spec.key] > widths[spec.key]:
            widths[spec.key] += min(spare, uncapped[spec.key] - widths[spec.key])
    return widths
