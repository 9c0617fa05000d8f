"""The customer display believes only a channel file this user wrote (owner, mode, no symlink),
and shows a QR only when it pays the address and the amount printed beside it: the red team's
forged file (a QR paying the attacker under the shop's address and amount) gets "Please ask
the staff", no code, no address, and a log line. The EIP-681 form of an ETH request and the
bare address both pass; the real dashboard's faces pass (against the simulator). No module grid
from the file is ever drawn: the display encodes the checked text itself, and the service's
own image (`qr_content = "server"`) reaches it as the address it was checked to encode."""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

import pytest

from conftest import make_settings, screen_text, wait_until
from orderdash.core.customer.channel import Publisher, channel_path, write_atomic
from orderdash.core.customer.consistency import inconsistency
from orderdash.core.customer.face import CustomerFace
from orderdash.core.customer.face import customer_face as face_of
from orderdash.core.customer.published import Published
from orderdash.core.customer.reading import Reader
from orderdash.core.domain.payment import payment_state
from orderdash.core.model import jsontext
from orderdash.core.model.wire import OrderEnvelope
from orderdash.core.qr.image import cached_matrix_from_data_uri
from orderdash.core.qr.matrix import build_matrix
from orderdash.core.qr.payload import QRContent, qr_payload
from orderdash.simulator import SimulatorServer
from orderdash.simulator.png import qr_data_uri
from orderdash.tui.customer_display import DisplayApp
from orderdash.tui.factory import make_app
from orderdash.tui.widgets.customer import CustomerPanel
from orderdash.tui.widgets.qr import QRView
from support.example_order import FIXTURE, NOW
from support.faces import customer_face
from support.qr_screen import decode_qr_in_region

LEGIT = "bc1qlegitshopaddressxxxxxxxxxxxxxxxxxxxx"
ETH = "0x52908400098527886E0F7030069857D2E4169EE7"


def face(**fields: object) -> CustomerFace:
    return customer_face(
        **{
            "qr_text": f"BITCOIN:{LEGIT.upper()}?amount=0.00012871",
            "qr_caption": f"bitcoin:{LEGIT}?amount=0.00012871",
            "address": LEGIT,
            **fields,
        }
    )


def published(shown: CustomerFace) -> bytes:
    return Published(heartbeat=time.time(), face=shown).model_dump_json().encode()


def read(path: Path, shown: CustomerFace) -> CustomerFace | None:
    write_atomic(path, published(shown))
    return Reader(path).poll().face


FORGED = {
    "attacker's address": {"qr_text": "bitcoin:1ATTACKERxxxxxxxxxxxxxxxxxxxxxxx?amount=0.00012871"},
    "attacker's amount": {"qr_text": f"bitcoin:{LEGIT}?amount=0.5"},
    "red team's file": {"qr_text": "bitcoin:1ATTACKERxxxxxxxxxxxxxxxxxxxxxxx?amount=0.5"},
    "no amount printed": {"coin_amount": ""},
    "caption elsewhere": {"qr_caption": "bitcoin:1ATTACKERxxxxxxxxxxxxxxxxxxxxxxx"},
    "another parameter": {"qr_text": f"bitcoin:{LEGIT}?amount=0.00012871&r=https://evil/"},
    "not a payment": {"qr_text": "https://evil.example/pay", "qr_caption": ""},
    "eth to another": {
        "coin": "ETH",
        "qr_text": "ethereum:0x0000000000000000000000000000000000000001?value=128710000000000",
        "qr_caption": "",
        "coin_amount": "0.00012871",
        "address": ETH,
    },
    "eth wei off": {
        "coin": "ETH",
        "qr_text": f"ethereum:{ETH}?value=128710000000001",
        "qr_caption": "",
        "coin_amount": "0.00012871",
        "address": ETH,
    },
    "banner elsewhere": {"phase": "PARTLY_PAID", "headline_amount": "0.5 BTC"},
}


@pytest.mark.parametrize("fields", FORGED.values(), ids=FORGED.keys())
def test_a_face_that_does_not_hang_together_shows_words_alone(
    tmp_path: Path, fields: dict[str, object], caplog: pytest.LogCaptureFixture
) -> None:
    path = channel_path("default", tmp_path)
    with caplog.at_level(logging.WARNING, logger="orderdash"):
        shown = read(path, face(**fields))
    assert shown is not None and shown.trouble == "inconsistent"
    assert not (shown.qr_text or shown.qr_modules or shown.address or shown.coin_amount)
    assert shown.company == "Shop"
    assert [r for r in caplog.records if "inconsistent channel file" in r.getMessage()]


CONSISTENT = {
    "bip21 upper case": {},
    "bare address": {"qr_text": LEGIT, "qr_caption": ""},
    "eth bare address (today)": {
        "coin": "ETH",
        "qr_text": ETH,
        "qr_caption": "",
        "address": ETH,
        "coin_amount": "0.011378299448209289",
    },
    "eth eip-681": {
        "coin": "ETH",
        "qr_text": f"ethereum:{ETH}?value=11378299448209289",
        "qr_caption": f"ethereum:{ETH}?value=11378299448209289",
        "address": ETH,
        "coin_amount": "0.011378299448209289",
    },
    "eth eip-681 rounded up to the wei, chain id": {
        "coin": "ETH",
        "qr_text": f"ethereum:{ETH.lower()}@1?value=11378299448209290",
        "qr_caption": "",
        "address": ETH,
        "coin_amount": "0.0113782994482092891",
    },
    "eth eip-681 exponent": {
        "coin": "ETH",
        "qr_text": f"ethereum:{ETH}?value=1.5e18",
        "qr_caption": "",
        "address": ETH,
        "coin_amount": "1.5",
    },
    "cashaddr with prefix": {
        "coin": "BCH",
        "qr_text": "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a?amount=0.00012871",
        "qr_caption": "",
        "address": "bitcoincash:qpm2qsznhks23z7629mms6s4cwef74vcwvy22gdx6a",
    },
    "partly paid": {"phase": "PARTLY_PAID", "headline_amount": "0.00012871 BTC"},
    "checkout": {
        "phase": "COIN_NOT_CHOSEN",
        "coin": "",
        "checkout": True,
        "qr_text": "https://pay.example/checkout/abc",
        "qr_caption": "",
        "address": "",
        "coin_amount": "",
    },
}


@pytest.mark.parametrize("fields", CONSISTENT.values(), ids=CONSISTENT.keys())
def test_a_face_that_hangs_together_is_shown_as_it_is(
    tmp_path: Path, fields: dict[str, object]
) -> None:
    path = channel_path("default", tmp_path)
    expected = face(**fields)
    assert read(path, expected) == expected


def test_a_channel_file_writable_by_others_is_not_believed(tmp_path: Path) -> None:
    path = channel_path("default", tmp_path)
    write_atomic(path, published(face()))
    reader = Reader(path)
    assert reader.poll().face is not None
    path.chmod(0o666)
    reading = reader.poll()
    assert reading.face is None and "writable by others" in reading.problem


def test_a_symlinked_channel_file_is_not_followed(tmp_path: Path) -> None:
    real = tmp_path / "elsewhere.json"
    real.write_bytes(published(face()))
    real.chmod(0o600)
    path = channel_path("default", tmp_path / "run")
    path.parent.mkdir(mode=0o700)
    path.symlink_to(real)
    reading = Reader(path).poll()
    assert reading.face is None and "not a regular file" in reading.problem


def test_a_channel_file_of_another_user_is_not_believed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = channel_path("default", tmp_path)
    write_atomic(path, published(face()))
    if os.geteuid() == 0:
        os.chown(path, 65534, 65534)
    else:  # (the file is ours: we are said to be someone else)
        uid = os.getuid() + 1
        monkeypatch.setattr(os, "getuid", lambda: uid)
    reading = Reader(path).poll()
    assert reading.face is None and "owned by uid" in reading.problem


async def test_the_display_shows_the_forged_file_as_please_ask_the_staff(tmp_path: Path) -> None:
    path = channel_path("default", tmp_path)
    forged = face(**FORGED["red team's file"])
    app = DisplayApp(path, poll_interval=0.05)
    async with app.run_test(size=(120, 36)) as pilot:
        write_atomic(path, published(forged))
        await wait_until(pilot, lambda: app.query_one(CustomerPanel).display)
        await pilot.pause(0.3)
        text = screen_text(app)
        assert "Please ask the staff" in text
        assert LEGIT not in text and "ATTACKER" not in text and "0.00012871" not in text
        qr = app.query_one("#pos-qr", QRView)
        assert not qr.display or decode_qr_in_region(app, qr.region) == []


async def test_the_dashboards_own_faces_hang_together(
    sim_server: SimulatorServer, tmp_path: Path
) -> None:
    """What a dashboard publishes for each demo order (x) passes the display's check."""
    settings = make_settings(sim_server.base_url, poll_interval=0.3, refresh_interval=60.0)
    tokens = sim_server.sim.tokens()
    app = make_app(settings, tokens=tokens)
    assert isinstance(app.publisher, Publisher)
    checked = 0
    async with app.run_test(size=(160, 40)) as pilot:
        await wait_until(
            pilot, lambda: all(e.fetched for e in app.state.entries.values()), timeout=15
        )
        for token in tokens:
            app.state.customer_token = token
            shown = app.state.customer_face()
            if shown is None:
                continue
            from orderdash.core.customer.consistency import inconsistency

            assert inconsistency(shown) == "", (token, shown)
            checked += bool(shown.qr_text)
    assert checked >= 2


ATTACKER = "bitcoin:bc1qattackerattackerattackerattacker0000?amount=0.00012871"


def modules_of(text: str) -> tuple[str, ...]:
    """`text`'s code as the face's module rows."""
    matrix = build_matrix(text)
    return tuple("".join("1" if m else "0" for m in row) for row in matrix.modules)


async def test_a_forged_module_grid_is_never_drawn_the_display_encodes_the_checked_text(
    tmp_path: Path,
) -> None:
    """The red team's forgery: the legit address, amount and code text, and the attacker's QR
    handed as module rows ("the service's image")."""
    path = channel_path("default", tmp_path)
    forged = face(qr_modules=modules_of(ATTACKER))
    legit = forged.qr_text
    assert read(path, forged) == face()  # the grid dropped, the rest as it was
    app = DisplayApp(path, poll_interval=0.05)
    async with app.run_test(size=(120, 36)) as pilot:
        write_atomic(path, published(forged))
        qr = app.query_one("#pos-qr", QRView)
        await wait_until(pilot, lambda: app.query_one(CustomerPanel).display and qr.display)
        await pilot.pause(0.2)
        assert qr.source == "text"
        assert decode_qr_in_region(app, qr.region) == [legit]


def test_a_grid_alone_without_its_text_is_refused(tmp_path: Path) -> None:
    """A payable face whose only code was the grid holds no code once the grid is dropped."""
    path = channel_path("default", tmp_path)
    raw = json.loads(published(face(qr_modules=modules_of(ATTACKER))))
    raw["face"].update(qr_text="", qr_caption="")
    write_atomic(path, json.dumps(raw).encode())
    reading = Reader(path).poll()
    assert reading.face is None and reading.problem.startswith("unreadable channel file")


def server_mode_face(image_of: str) -> CustomerFace:
    """The example order awaiting payment, its code the service's image of `image_of`, decoded
    (as the till's screen has it)."""
    data = jsontext.loads(FIXTURE.read_bytes())
    data["data"]["status"] = {"code": "IN_PROGRESS", "label": "In progress"}
    data["data"]["transactions"] = []
    order = OrderEnvelope.model_validate(data).data
    state = payment_state(order, NOW)
    uri = qr_data_uri(image_of)
    cached_matrix_from_data_uri(uri)  # decoded (the till's screen does it in a worker)
    return face_of(order, state, qr_payload(order, state, QRContent.SERVER, uri))


def published_face(path: Path, shown: CustomerFace) -> CustomerFace | None:
    """What the display reads of `shown` published by a dashboard."""
    assert Publisher(path).publish(shown) is None
    return Reader(path).poll().face


def test_the_services_image_reaches_the_display_as_the_address_it_was_checked_to_encode(
    tmp_path: Path,
) -> None:
    address = server_mode_face("x").address
    till = server_mode_face(address)
    assert till.qr_modules and till.qr_text == address  # the image is our code of it
    shown = published_face(channel_path("default", tmp_path), till)
    assert shown is not None and not shown.qr_modules
    assert shown.qr_text == address and inconsistency(shown) == "" and not shown.qr_note


def test_a_service_image_of_anything_else_reaches_the_display_as_the_address_and_a_note(
    tmp_path: Path,
) -> None:
    till = server_mode_face(ATTACKER)
    assert till.qr_modules and till.qr_text == ""  # not the address's code: not checked
    shown = published_face(channel_path("default", tmp_path), till)
    assert shown is not None and not shown.qr_modules
    assert shown.qr_text == till.address and inconsistency(shown) == ""
    assert shown.qr_note == "note_server_image_unchecked"
