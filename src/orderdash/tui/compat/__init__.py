"""Every place orderdash touches a private Textual name or patches Textual, one mend a module.

Each names the Textual version it was written against and what it works around, and has its
own test (tests/tui/test_compat.py); the dependency is pinned to 8.2.x, so an upgrade that changes
one of these code paths shows there. Nothing outside this folder imports `textual._*`
(tests/unit/test_layers.py).

- `styles_cache`: a memory leak (removed widgets kept by an `lru_cache` on a method);
- `toast`: a memory leak (an empty `ToastHolder` left behind per expired toast);
- `datatable_widths`: a row cut at its column's old width (Textual issue #3533);
- `newest_first_table`: a DataTable whose row order we keep ourselves, and whose cells keep
  their rendered text while they show the same (performance);
- `held_render`: a screen not rendered while painting is held, nor restyled whole at its
  first resume (performance);
- `key_names`: the bound keys shown without paging in the Unicode name database (memory);
- `strip_caches`: a rendered line's caches made when first used (memory).

`install()` applies the process-wide patches once (`make_app` calls it).
"""

from __future__ import annotations

from orderdash.tui.compat import (
    datatable_widths,
    key_names,
    strip_caches,
    styles_cache,
    toast,
)

_installed = False


def install() -> None:
    """Apply the process-wide mends (idempotent)."""
    global _installed
    if _installed:
        return
    _installed = True
    styles_cache.install()
    toast.install()
    datatable_widths.install()
    key_names.install()
    strip_caches.install()
