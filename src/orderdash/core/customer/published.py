"""The channel file's content (`core/customer/channel.py`): who is on the customer display, in
which language, and when the dashboard last said so; which dashboard says it (its till, and
the holder's id a request to let go names: `holding.py`). Apart from the channel's plumbing because
it brings the customer's face and its models, which a dashboard needs only once something is
on the display (not for its first paint)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator

from orderdash.core.customer.catalogue import DEFAULT_LANGUAGE, LANGUAGES
from orderdash.core.customer.face import CustomerFace

FORMAT = 1


class Published(BaseModel):
    """The whole file: who is on the display, in which language, and when it was last said."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: int = Field(FORMAT, ge=FORMAT, le=FORMAT)
    heartbeat: float = Field(ge=0, le=10**11)
    language: str = DEFAULT_LANGUAGE
    #: The publishing dashboard's till (its `till` setting), for another dashboard's question.
    till: str = Field("", max_length=64)
    #: The publisher's id in this process's life (`holding.new_holder`).
    holder: str = Field("", pattern=r"^[0-9a-f]{0,32}$")
    #: None: the display is idle (cleared).
    face: CustomerFace | None = None

    @field_validator("till")
    @classmethod
    def _till(cls, value: str) -> str:
        if not value.isprintable():
            raise ValueError("holds control characters")
        return value

    def model_post_init(self, _: object) -> None:
        if self.language not in LANGUAGES:
            raise ValueError(f"unknown language {self.language[:10]!r}")
