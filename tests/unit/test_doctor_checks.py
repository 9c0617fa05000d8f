"""`doctor`'s checks that need no network: the clock against a `Date` header, a bearer's
expiry read from its JWT, the budgets left, and no secret left in a message."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from email.utils import formatdate

from pydantic import SecretStr

from orderdash.core.doctor.hosts import HostAnswer, clock_check
from orderdash.core.doctor.local import budgets_check
from orderdash.core.doctor.result import OK, Check
from orderdash.core.service.bearer_claims import expires_at
from orderdash.core.settings.model import Settings
from orderdash.core.usecases.doctor import _redacted

NOW = 1_800_000_000.0


def answer(date: str | None, local: float = NOW) -> HostAnswer:
    return HostAnswer(Check("order API host", OK, "answers"), 404, date, local)


def test_the_clock_is_told_against_the_services_date() -> None:
    assert clock_check(answer(formatdate(NOW, usegmt=True))).status == "ok"
    late = clock_check(answer(formatdate(NOW + 30, usegmt=True)))
    assert late.status == "warn" and "30 s behind" in late.message
    early = clock_check(answer(formatdate(NOW - 3600, usegmt=True)))
    assert early.status == "fail" and "3,600 s ahead" in early.message


def test_a_date_that_is_missing_or_hostile_is_a_warning_not_a_crash() -> None:
    for date in (None, "", "yesterday", "Sun, 99 Foo 99999 99:99:99 GMT", "\x1b[2J" * 1000):
        check = clock_check(answer(date))
        assert check.status == "warn" and "not checked" in check.message
    assert clock_check(HostAnswer(Check("h", "fail", "away"))).status == "warn"


def jwt(payload: object) -> str:
    body = base64.urlsafe_b64encode(json.dumps(payload).encode()).rstrip(b"=").decode()
    return f"eyJhbGciOiJIUzI1NiJ9.{body}.c2ln"


def test_a_bearers_expiry_is_read_from_its_exp_claim_only_when_sane() -> None:
    assert expires_at(jwt({"iat": 1, "exp": 1_800_000_000})) == datetime.fromtimestamp(
        1_800_000_000, UTC
    )
    for hostile in (
        jwt({"iat": 1}),
        jwt({"exp": "soon"}),
        jwt({"exp": 10**30}),
        jwt({"exp": True}),
        jwt([1, 2]),
        "not.a-jwt",
        "a.!!!.c",
        "a." + "A" * 10_000 + ".c",
    ):
        assert expires_at(hostile) is None


def test_the_budgets_left_are_this_tills_share_less_what_doctor_spent() -> None:
    settings = Settings.model_validate({"tills_per_ip": 4})
    check = budgets_check(settings.budgets, {"order": 1, "private": 2}, tills_per_ip=4)
    assert check.status == "ok"
    assert check.message.startswith("getOrder 49 of 50 a minute and 2,500 an hour")
    assert "this till's share of 4" in check.message and "private calls 198 of 200" in check.message


def test_a_token_cut_at_the_messages_end_is_still_redacted() -> None:
    secret = "access-Zq4-cut-at-the-end-never-shown"
    settings = Settings(access_token=SecretStr(secret))
    for at in (380, 390, 399):
        shown = _redacted(Check("log-in", "fail", "x" * at + secret), settings).message
        assert secret[:8] not in shown and len(shown) <= 400
