"""Glossary words are linked at their first use on every page: index pages and API pages included.

CONTRIBUTING.md: "Link glossary words at first use on each page with {term}`pullback`". This test reads the page
sources (so it needs no build) and, for each glossary entry below, finds the first place in the prose where one of
its words is used. That use must be a {term} link to the entry, or come after one. Prose means: not front matter,
code cells, code blocks, inline code, math, headings, labels, or the text of another link ({ref}, {doc}, a URL),
which is already a link.

A page that fails is listed with the word, the line, and the sentence it sits in.
"""

import re
from pathlib import Path

import pytest

from docsite import ROOT

GLOSSARY = ROOT / "guides" / "glossary.md"

# The words CONTRIBUTING.md asks every page to link, grouped by glossary entry (a link to any word of an entry
# covers the others: "VJP" after {term}`pullback` is fine).
ENTRIES = {
    "primal": ["primal"],
    "tangent": ["tangent"],
    "cotangent": ["cotangent", "covector"],
    "pushforward": ["pushforward", "JVP"],
    "pullback": ["pullback", "VJP"],
    "seed": ["seed"],
    "disconnected": ["disconnected"],
    "null gradient": ["null gradient"],
    "zero gradient": ["zero gradient"],
}
CASE_SENSITIVE = {"JVP", "VJP"}

PAGES = sorted(
    p for p in [ROOT / "index.md", *ROOT.glob("notebooks/*.md"), *ROOT.glob("guides/*.md"), *ROOT.glob("api/*.md")]
    if p != GLOSSARY
)

FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")
PROSE_DIRECTIVES = {"note", "warning", "tip", "important", "admonition", "seealso", "hint", "caution",
                    "attention", "danger", "error"}


def glossary_terms():
    """Every term the glossary defines (the unindented lines of its glossary directive)."""
    text = GLOSSARY.read_text()
    block = text[text.index("```{glossary}"):]
    block = block[block.index("\n") + 1:block.index("\n```")]
    return {line.strip() for line in block.splitlines() if line.strip() and not line.startswith((" ", "\t"))}


def prose_lines(text):
    """(line number, prose) pairs: the page with code, math, headings, labels and other links blanked out."""
    lines = text.splitlines()
    out = []
    in_front_matter = lines[:1] == ["---"]
    fence = None  # the fence string of an open non-prose block
    in_math = False
    for number, line in enumerate(lines, start=1):
        if in_front_matter:
            if number > 1 and line.strip() == "---":
                in_front_matter = False
            continue
        match = FENCE.match(line.strip())
        if fence is not None:
            if match and line.strip().startswith(fence) and not match.group(2).strip():
                fence = None
            continue
        if match:
            info = match.group(2).strip()
            directive = re.match(r"\{([\w-]+)\}", info)
            if not (directive and directive.group(1) in PROSE_DIRECTIVES):
                fence = match.group(1)
            continue
        stripped = line.strip()
        if stripped.startswith("$$"):
            if not (len(stripped) > 2 and stripped.endswith("$$") and stripped != "$$"):
                in_math = not in_math
            continue
        if in_math:
            continue
        if (stripped.startswith("#") or re.fullmatch(r"\([\w-]+\)=", stripped) or stripped.startswith(":::")
                or re.match(r":[\w-]+:", stripped) or stripped.startswith("<!--")):
            continue
        out.append((number, line))
    return out


ROLE = re.compile(r"\{([\w:-]+)\}`([^`]*)`")  # [^`] spans line breaks too
INLINE_CODE = re.compile(r"``.+?``|`[^`]*`", re.S)
MATH = re.compile(r"\$[^$\n]+\$")
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)|https?://\S+")


def term_target(content):
    """The glossary term a {term} role points to: `text <target>` or `target`."""
    explicit = re.search(r"<([^>]+)>\s*$", content)
    return (explicit.group(1) if explicit else content).strip().lower()


def events(text):
    """In reading order: ('link', entry) for a {term} link and ('use', entry, word, line, text) for a plain use.

    The prose lines are joined back into one text (other lines left empty, so line numbers hold), because a role
    or a code span may continue on the next line."""
    aliases = {word.lower(): entry for entry, words in ENTRIES.items() for word in words}
    lines = text.splitlines()
    kept = dict(prose_lines(text))
    prose = "\n".join(kept.get(number, "") for number in range(1, len(lines) + 1))
    line_of = lambda position: prose.count("\n", 0, position) + 1
    pieces = []  # (position, event)
    for role in ROLE.finditer(prose):
        if role.group(1) == "term":
            target = term_target(role.group(2))
            entry = aliases.get(target) or aliases.get(target.rstrip("s")) or f"other:{target}"
            pieces.append((role.start(), ("link", entry)))
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0))  # keep positions and line breaks
    plain = ROLE.sub(blank, prose)
    plain = INLINE_CODE.sub(blank, plain)
    plain = MATH.sub(blank, plain)
    plain = LINK.sub(blank, plain)
    for entry, words in ENTRIES.items():
        for word in words:
            flags = 0 if word in CASE_SENSITIVE else re.IGNORECASE
            pattern = re.escape(word).replace(r"\ ", r"\s+")
            for use in re.finditer(rf"(?<![\w.-]){pattern}s?(?![\w-])", plain, flags):
                number = line_of(use.start())
                pieces.append((use.start(), ("use", entry, use.group(0), number, lines[number - 1].strip())))
    return [event for _, event in sorted(pieces, key=lambda p: p[0])]


def unlinked_first_uses(path):
    linked, reported, problems = set(), set(), []
    for event in events(path.read_text()):
        if event[0] == "link":
            linked.add(event[1])
        elif event[1] not in linked and event[1] not in reported:
            reported.add(event[1])
            _, entry, word, number, line = event
            problems.append(f"{path.relative_to(ROOT)}:{number}: first use of '{word}' is not a {{term}} link "
                            f"(entry '{entry}'): {line[:140]}")
    return problems


def test_the_checked_words_are_glossary_terms():
    terms = {t.lower() for t in glossary_terms()}
    missing = [word for words in ENTRIES.values() for word in words if word.lower() not in terms]
    assert not missing, f"not defined in guides/glossary.md: {missing}"


def test_term_links_point_to_glossary_terms():
    terms = {t.lower() for t in glossary_terms()}
    bad = []
    for path in PAGES:
        text = path.read_text()
        for role in ROLE.finditer(text):
            if role.group(1) == "term" and term_target(role.group(2)) not in terms:
                bad.append(f"{path.relative_to(ROOT)}: {{term}} target '{term_target(role.group(2))}' is not in the glossary")
    assert not bad, "\n".join(bad)


def test_the_parser_sees_a_plain_use_and_a_link():
    sample = ("---\nkernelspec: {}\n---\n\n# A pullback heading\n\n```{code-cell} python\npullback(y, x, z)\n```\n\n"
              "Some `pullback` code and $pullback$ math, then a {term}`pullback <pullback>` link, then a {ref}`split\n"
              "tangent <x>` link and a tangent.\n")
    kinds = [(e[0], e[1]) for e in events(sample)]
    assert kinds == [("link", "pullback"), ("use", "tangent")]


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_glossary_words_are_linked_at_first_use(path):
    problems = unlinked_first_uses(path)
    assert not problems, "\n".join(problems)
