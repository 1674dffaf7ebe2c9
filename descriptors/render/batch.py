"""``descgen batch``'s table: the constants of a batch (name, word, descriptor) as a rich
table under a title line.  The other formats -- C++ header, Python module, JSON, the plain
hex listing -- are the batch's product, :func:`descriptors.tools.batch.render`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..tools.batch import HEX_COLUMNS, BatchResult
from ..words.codec import format_word

__all__ = ["table"]


def table(results: Sequence[BatchResult], origin: str) -> Any:
    """The rich table of ``results``: one row per configuration, titled with their count and
    ``origin`` (the file's name, or stdin)."""
    from rich.table import Table

    out = Table(title=f"{len(results)} descriptor constant(s) from {origin}",
                title_justify="left")
    for title in HEX_COLUMNS:
        out.add_column(title)
    for r in results:
        out.add_row(r.config.name, format_word(r.config.descriptor, r.word), r.config.descriptor)
    return out
