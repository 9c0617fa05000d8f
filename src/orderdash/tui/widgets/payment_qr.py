"""Putting a QR payload (address, payment URI or the server's image) into a QRView.

The server's image is decoded in a worker thread, never on the event loop (a hostile image
froze the screen for 40 s a time): until it is decoded the address is shown, then the view
posts `ServerImageDecoded` and its screen shows the payload again, which the cache answers.
"""

from __future__ import annotations

import threading
from weakref import WeakKeyDictionary

from textual.message import Message

from orderdash.core.domain.payment import PaymentState
from orderdash.core.qr.matrix import same_code
from orderdash.core.qr.payload import QRPayload
from orderdash.tui.widgets.qr import EMPTY_NOTE, QRView

# The PNG decoder (`core/qr/image.py`) is imported where it is used: it loads with the first
# server image, as only `qr_content = "server"` shows one.

DECODING_NOTE = "decoding the server QR image: address shown meanwhile"

#: The image each view has a decode under way for (one worker per view and image).
_decoding: WeakKeyDictionary[QRView, str] = WeakKeyDictionary()
_decoding_lock = threading.Lock()


class ServerImageDecoded(Message):
    """A server QR image asked for by this view is decoded (or refused): show it again."""


def withdrawn_note(payment: PaymentState) -> str:
    """Why a settled order has no QR."""
    return f"No QR: the order is {payment.phase.value}, nothing more is to be paid"


def show_payload(
    view: QRView, payload: QRPayload, payment: PaymentState | None = None, withdrawn: str = ""
) -> str:
    """Show `payload` in `view`; returns a note for the user when it is not what was asked.

    A settled order (paid, confirmed, overpaid, expired, canceled: `payment.settled`) gets no
    code at all: staff who turn the screen must not invite a second payment. Nor does one
    that must not be paid now for another reason, `withdrawn` (its time is up by this
    machine's clock, or the service has not answered for a rate period): it says why."""
    if (payment is not None and payment.settled) or withdrawn:
        view.placeholder = withdrawn if withdrawn or payment is None else withdrawn_note(payment)
        view.show_matrix(None, "")
        view.text = ""
        view.caption_text = ""
        return "withdrawn"
    view.placeholder = EMPTY_NOTE
    if payload.server_image:
        from orderdash.core.qr import image  # only with qr_content = server

        result = image.cached_matrix_from_data_uri.peek(payload.server_image)
        if result is None:
            view.text = payload.caption.rsplit(" \u00b7 ", 1)[-1]
            view.caption_text = ""
            _decode_in_worker(view, payload.server_image)
            return DECODING_NOTE
        if isinstance(result, image.QRImageError):
            view.text = payload.caption.rsplit(" \u00b7 ", 1)[-1]
            view.caption_text = ""
            if isinstance(result, image.QRImageUnavailable):  # Pillow is not installed
                return f"address shown: {result}"
            return f"server QR image unusable ({result}): address shown"
        view.show_matrix(result, payload.caption)
        return payload.note
    view.text = payload.text or ""
    # the code may hold the text in upper case; the caption reads as people write it
    view.caption_text = payload.caption if payload.caption != payload.text else ""
    return payload.note


def qr_what(payload: QRPayload, note: str) -> str:
    """What the QR code on screen says, in a few words."""
    if note == "withdrawn":
        return "none: nothing more is to be paid (so nobody pays twice)"
    if payload.kind == "server":
        what = "the address" if note else "the server's QR image"  # the note says why
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


def decode_server_image(view: QRView, uri: str, checked_against: str = "") -> None:
    """Decode `uri` in a worker unless the cache has it; `view` posts `ServerImageDecoded`
    when it is done (the customer panel shows a face built from the cache). Our own code of
    `checked_against` (the address the image should encode: `face.py` `image_text`) is built
    there too, into its cache."""
    from orderdash.core.qr import image

    if image.cached_matrix_from_data_uri.peek(uri) is None:
        _decode_in_worker(view, uri, checked_against)


def _decode_in_worker(view: QRView, uri: str, checked_against: str = "") -> None:
    with _decoding_lock:
        if _decoding.get(view) == uri:
            return
        _decoding[view] = uri

    from orderdash.core.qr import image

    def decode() -> None:
        try:
            matrix = image.cached_matrix_from_data_uri(uri)
            if checked_against:
                same_code(matrix, checked_against)  # (what it builds is cached)
        except image.QRImageError:
            pass  # cached too: the next show says why
        finally:
            with _decoding_lock:
                if _decoding.get(view) == uri:
                    del _decoding[view]
        view.post_message(ServerImageDecoded())

    view.run_worker(
        decode, name="server QR image", group="server-qr", thread=True, exit_on_error=False
    )
