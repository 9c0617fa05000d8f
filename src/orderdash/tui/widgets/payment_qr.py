"""Putting a QR payload (address, payment URI or the server's image) into a QRView."""

from __future__ import annotations

from orderdash.core.qr.image import QRImageError, cached_matrix_from_data_uri
from orderdash.core.qr.payload import QRPayload
from orderdash.tui.widgets.qr import QRView


def show_payload(view: QRView, payload: QRPayload) -> str:
    """Show `payload` in `view`; returns a note for the user when it is not what was asked."""
    if payload.server_image:
        try:
            matrix = cached_matrix_from_data_uri(payload.server_image)
        except QRImageError as error:
            view.text = payload.caption.rsplit(" \u00b7 ", 1)[-1]
            view.caption_text = ""
            return f"server QR image unusable ({error}): address shown"
        view.show_matrix(matrix, payload.caption)
        return payload.note
    view.text = payload.text or ""
    # the code may hold the text in upper case; the caption reads as people write it
    view.caption_text = payload.caption if payload.caption != payload.text else ""
    return payload.note


def qr_what(payload: QRPayload, note: str) -> str:
    """What the QR code on screen says, in a few words."""
    if payload.kind == "server" and not note:
        what = "the server's QR image"
    elif payload.kind == "uri":
        what = (
            "payment URI with the amount due"
            if "?amount=" in (payload.text or "")
            else "payment URI"
        )
    elif payload.kind == "address":
        what = "the address"
    else:
        what = "nothing"
    return f"{what} ({note})" if note else what
