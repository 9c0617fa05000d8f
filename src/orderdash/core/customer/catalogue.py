"""Every word the customer reads, per language: flat JSON files of `key: text` with named
`{placeholders}` (the convention of BTCPay Server's checkout), one file a language in
`locales/`, shipped inside the package.

Placeholders are filled with literal values (amounts keep the server's digits whatever the
language): no format specs, no attribute access, nothing a catalogue could run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from importlib import resources

DEFAULT_LANGUAGE = "en"
#: The languages shipped, in the order docs/customer-display.md lists them.
LANGUAGES = ("en", "de", "fr", "es", "it", "pt", "nl", "ja")
LANGUAGE_NAMES = {
    "en": "English",
    "de": "Deutsch",
    "fr": "Français",
    "es": "Español",
    "it": "Italiano",
    "pt": "Português",
    "nl": "Nederlands",
    "ja": "日本語",
}
PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


class Catalogue:
    """The texts of one language; `text(key, **values)` fills the named placeholders."""

    def __init__(self, language: str, texts: Mapping[str, str]) -> None:
        self.language = language
        self.texts = dict(texts)

    def text(self, key: str, **values: str) -> str:
        template = self.texts.get(key)
        if template is None:
            template = catalogue(DEFAULT_LANGUAGE).texts[key]
        # an unknown name stays as written rather than raising at the till
        return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)


def load_texts(language: str) -> dict[str, str]:
    """The raw catalogue of `language` (one of LANGUAGES)."""
    if language not in LANGUAGES:
        raise KeyError(language)
    raw = resources.files(__package__).joinpath("locales", f"{language}.json").read_text("utf-8")
    texts = json.loads(raw)
    if not isinstance(texts, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in texts.items()
    ):
        raise ValueError(f"catalogue {language} is not a flat object of strings")
    return texts


@cache
def catalogue(language: str) -> Catalogue:
    """The catalogue of `language`; English for a language not shipped."""
    if language not in LANGUAGES:
        language = DEFAULT_LANGUAGE
    return Catalogue(language, load_texts(language))


def resolve_language(setting: str, env: Mapping[str, str]) -> str:
    """The `language` setting as a shipped language: `auto` follows LC_ALL, LC_MESSAGES, LANG
    (`de_DE.UTF-8` -> `de`); anything not shipped falls back to English."""
    wanted = setting.strip().lower()
    if wanted == "auto":
        wanted = ""
        for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
            value = env.get(name, "")
            if value and value not in ("C", "POSIX") and not value.startswith("C."):
                wanted = value.split(".")[0].split("_")[0].split("-")[0].lower()
                break
    return wanted if wanted in LANGUAGES else DEFAULT_LANGUAGE
