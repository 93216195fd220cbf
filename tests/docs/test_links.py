"""Every relative link of README.md and docs/*.md leads somewhere: the file exists, and a
``#fragment`` into a Markdown page names one of its headings, as GitHub spells heading anchors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    return {anchor(heading) for heading in re.findall(r"^#+ (.*)$", text, flags=re.MULTILINE)}


def links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    return [
        target
        for target in re.findall(r"\]\(([^)\s]+)\)", text)
        if not re.match(r"[a-z]+:", target)  # http:, https:, mailto:
    ]


def test_anchors_are_spelt_as_github_spells_them() -> None:
    assert anchor("`generate({...}) -> { shape }`: asking the model") == "generate----shape--asking-the-model"
    assert anchor("A 30-second tour") == "a-30-second-tour"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_relative_link_leads_somewhere(page: Path) -> None:
    broken = []
    for target in links(page):
        path, _, fragment = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        missing_anchor = bool(fragment) and file.suffix == ".md" and file.exists() and fragment not in anchors(file)
        if not file.exists() or missing_anchor:
            broken.append(target)
    assert broken == []
