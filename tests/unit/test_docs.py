"""The service's contract lives in the repository (docs/): every Markdown file that the code,
the tests, the scripts, the README or the docs name exists here, every section named
(`docs/service-api.md#times`) is a heading of that file, and no text names a document that
only existed outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
#: Where references are looked for, besides the top-level README and docs/ itself.
SCANNED = ("src", "tests", "bench", "scripts")
TEXT_SUFFIXES = {".py", ".md", ".tcss", ".toml", ".json", ".txt", ".cfg", ".sh"}
#: `docs/service-api.md#times`, `bench/README.md`, `(limits.md#our-budgets)`.
REFERENCE = re.compile(r"(?<![\w./-])((?:\.\./|[\w-]+/)*[\w.-]*\w\.md)\b(?:#([\w-]+))?")
#: Names of documents kept beside the repository, never in it: a reference to one leaves a
#: maintainer who clones the repository with nothing to read (written split, so that this
#: file does not name them itself).
OUTSIDE = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"(?<![\w-])PIT" + "FALLS",
        r"service[- ]" + "notes",
        r"service-" + "examples",
        r"(?<![\w-])order-" + r"api\b",
        "shared/" + "spec",
        "STYLE" + r"\.md",
    )
)
#: A Markdown link or image: `[text](target)`, `![alt](target)`; the target up to `)` or a space.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
#: An inline code span, whose text is shown, not followed.
CODE_SPAN = re.compile(r"`[^`]*`")
#: The manual is read whole by a person; its detail lives in docs/.
README_MAX_LINES = 500


def scanned_files() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "pyproject.toml", *sorted(DOCS.rglob("*.md"))]
    for folder in SCANNED:
        files += sorted(
            path
            for path in (ROOT / folder).rglob("*")
            if path.is_file()
            and path.suffix in TEXT_SUFFIXES
            and "__pycache__" not in path.parts
            and "__snapshots__" not in path.parts
        )
    return [path for path in files if path != Path(__file__).resolve()]


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(markdown: Path) -> set[str]:
    found: set[str] = set()
    fenced = False
    for line in markdown.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and (heading := re.match(r"#{1,6}\s+(.+?)\s*#*\s*$", line)):
            found.add(slug(heading[1]))
    return found


def target(source: Path, reference: str) -> Path | None:
    """The repository file `reference` names: relative to the folder of the file that names it
    (as a Markdown link is), or to the repository's root (as the code names them)."""
    for base in (source.parent, ROOT):
        path = (base / reference).resolve()
        if path.is_file() and path.is_relative_to(ROOT):
            return path
    return None


def references() -> list[tuple[Path, int, str, str | None]]:
    found = []
    for path in scanned_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in REFERENCE.finditer(line):
                found.append((path, number, match[1], match[2]))
    return found


def where(path: Path, number: int) -> str:
    return f"{path.relative_to(ROOT)}:{number}"


def test_the_contract_is_in_the_repository() -> None:
    expected = {"README.md", "service-api.md", "account-api.md", "limits.md"}
    assert expected <= {path.name for path in DOCS.glob("*.md")}


def test_every_named_markdown_file_exists_here() -> None:
    missing = [
        f"{where(path, number)}: {name}"
        for path, number, name, _ in references()
        if target(path, name) is None
    ]
    assert not missing, "references to Markdown files the repository does not have:\n" + (
        "\n".join(missing)
    )


def test_every_named_section_is_a_heading_of_its_file() -> None:
    cache: dict[Path, set[str]] = {}
    wrong = []
    for path, number, name, section in references():
        document = target(path, name)
        if section is None or document is None:
            continue
        if document not in cache:
            cache[document] = anchors(document)
        if section not in cache[document]:
            wrong.append(f"{where(path, number)}: {name}#{section}")
    assert not wrong, "sections that are not headings of their file:\n" + "\n".join(wrong)


def test_no_text_names_a_document_from_outside_the_repository() -> None:
    named = [
        f"{where(path, number)}: {line.strip()[:90]}"
        for path in scanned_files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if any(pattern.search(line) for pattern in OUTSIDE)
    ]
    assert not named, "documents outside the repository named:\n" + "\n".join(named)


def test_the_docs_index_lists_every_docs_file() -> None:
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    listed = {match[1] for match in REFERENCE.finditer(index)}
    unlisted = [p.name for p in DOCS.glob("*.md") if p.name != "README.md" and p.name not in listed]
    assert not unlisted, f"docs/README.md does not list {unlisted}"


@pytest.mark.parametrize(
    ("text", "names"),
    [
        (
            "see docs/service-api.md#times and bench/README.md.",
            [("docs/service-api.md", "times"), ("bench/README.md", None)],
        ),
        ("[limits](limits.md#our-budgets)", [("limits.md", "our-budgets")]),
        ("the notes (" + "PIT" + "FALLS.md)", [("PIT" + "FALLS.md", None)]),
        ("not a reference: x.mdx, docs/", []),
    ],
)
def test_references_are_found(text: str, names: list[tuple[str, str | None]]) -> None:
    assert [(match[1], match[2]) for match in REFERENCE.finditer(text)] == names


def test_a_reference_to_a_missing_file_or_section_is_caught(tmp_path: Path) -> None:
    source = DOCS / "README.md"
    assert target(source, "service-api.md") == DOCS / "service-api.md"
    assert target(source, "docs/service-api.md") == DOCS / "service-api.md"
    assert target(source, "order" + "-api.md") is None
    assert target(source, "../../outside.md") is None
    assert "times" in anchors(DOCS / "service-api.md")
    assert "no-such-section" not in anchors(DOCS / "service-api.md")
    assert slug("Currency, status and urls") == "currency-status-and-urls"
    assert slug("`getOrder`") == "getorder"


def markdown_links(markdown: Path) -> list[tuple[int, str]]:
    """The links a Markdown file makes (outside fenced blocks and code spans), with their line."""
    found: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(markdown.read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            found += [(number, match[1]) for match in LINK.finditer(CODE_SPAN.sub("", line))]
    return found


def broken_links(markdown: Path) -> list[str]:
    """Each link of `markdown` that names no file of the repository (relative to the file's
    own folder, as a Markdown link is read) or no heading of the Markdown file it names."""
    broken = []
    inside = markdown.is_relative_to(ROOT)
    for number, link in markdown_links(markdown):
        place = where(markdown, number) if inside else f"{markdown.name}:{number}"
        if re.match(r"[a-z][a-z0-9+.-]*:", link):
            continue  # https:, mailto:: outside the repository
        name, _, section = link.partition("#")
        document = (markdown.parent / name).resolve() if name else markdown
        if not document.exists() or not (document == markdown or document.is_relative_to(ROOT)):
            broken.append(f"{place}: {link} (no such file)")
        elif section and (document.suffix != ".md" or section not in anchors(document)):
            broken.append(f"{place}: {link} (no such heading)")
    return broken


def test_every_link_in_the_readme_and_the_docs_resolves() -> None:
    broken = [
        problem
        for markdown in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
        for problem in broken_links(markdown)
    ]
    assert not broken, "links that resolve to no file or heading:\n" + "\n".join(broken)


def test_a_broken_link_is_caught(tmp_path: Path) -> None:
    page = DOCS / "README.md"
    good = broken_links(page)
    copy = tmp_path / "page.md"
    copy.write_text(
        "# Page\n\n## A section\n\n"
        "[here](#a-section) [gone](#no-such-section) `[code](#not-a-link)`\n"
        "[file](missing.md) [web](https://example.org/x.md#y)\n"
        "```\n[fenced](#not-a-link-either)\n```\n",
        encoding="utf-8",
    )
    assert not good
    assert [problem.split(": ", 1)[1] for problem in broken_links(copy)] == [
        "#no-such-section (no such heading)",
        "missing.md (no such file)",
    ]


def test_the_readme_is_a_manual_under_its_line_limit() -> None:
    lines = len((ROOT / "README.md").read_text(encoding="utf-8").splitlines())
    assert lines < README_MAX_LINES, (
        f"README.md has {lines} lines: move the detail to docs/ and link to it"
    )
