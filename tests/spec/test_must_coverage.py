"""Every requirement of the spec is covered by a test, or listed as not yet covered.

A requirement is a bracketed id such as ``[P-12]`` in spec/*.md or spec/rules/*.md. A test
covers it with a comment ``# covers: P-12`` (several ids separated by commas) on the lines just
above its ``def`` (or its decorators). spec/protocol.md section 10 lists, with a reason, the ids
no test covers yet. This module also writes the table spec/must-coverage.md:

    python tests/spec/test_must_coverage.py --write
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "spec"
TABLE = SPEC / "must-coverage.md"
ID = r"[A-Z]+-\d+"
DEFINED = re.compile(rf"\[({ID})\]")
COVERS = re.compile(rf"^\s*# covers: ({ID}(?:,\s*{ID})*)\s*$")
TEST_DEF = re.compile(r"^\s*(?:async\s+)?def (test_\w+)")
NOT_YET = re.compile(r"<!-- not-yet-covered -->\n(.*?)<!-- /not-yet-covered -->", re.S)
KEYWORD = re.compile(r"\b(MUST|SHALL|REQUIRED)\b")


def spec_files() -> list[Path]:
    files = sorted(SPEC.glob("*.md")) + sorted((SPEC / "rules").glob("*.md"))
    return [f for f in files if f != TABLE]


def requirements() -> dict[str, tuple[str, str]]:
    """id -> (file, first sentence of its text)."""
    out: dict[str, tuple[str, str]] = {}
    for path in spec_files():
        text = path.read_text()
        for match in DEFINED.finditer(text):
            rid = match.group(1)
            assert rid not in out, f"{rid} is defined twice ({out[rid][0]}, {path.name})"
            rest = text[match.end() :].split("\n\n")[0]
            rest = " ".join(rest.split())
            sentence = re.split(r"(?<=[.:])\s", rest, maxsplit=1)[0]
            out[rid] = (str(path.relative_to(ROOT)), sentence)
    return out


def coverage() -> dict[str, list[str]]:
    """id -> the tests that name it (``path::test``)."""
    out: dict[str, list[str]] = defaultdict(list)
    for path in sorted((ROOT / "tests").rglob("*.py")):
        pending: list[str] = []
        for line in path.read_text().splitlines():
            covers = COVERS.match(line)
            if covers:
                pending += [i.strip() for i in covers.group(1).split(",")]
                continue
            test = TEST_DEF.match(line)
            if test and pending:
                for rid in pending:
                    out[rid].append(f"{path.relative_to(ROOT)}::{test.group(1)}")
                pending = []
            # Between the comment and the test only decorators (and their lines) may stand.
            top_level = line.strip() and not line.startswith((" ", "\t", "@", "#", ")", "]"))
            assert not (pending and top_level), f"{path}: '# covers:' not before a test: {line!r}"
    return dict(out)


def not_yet() -> dict[str, str]:
    """id -> the reason it is not covered yet (spec/protocol.md section 10)."""
    match = NOT_YET.search((SPEC / "protocol.md").read_text())
    assert match, "spec/protocol.md has no not-yet-covered block"
    rows = re.findall(rf"^\| ({ID}) \| (.+?) \|$", match.group(1), re.M)
    return dict(rows)


def render() -> str:
    reqs, covered, pending = requirements(), coverage(), not_yet()
    lines = [
        "# Every requirement and the test that covers it",
        "",
        "*Generated* by `python tests/spec/test_must_coverage.py --write` from the bracketed",
        "requirement ids of spec/ and the `# covers:` comments of tests/; a test fails when this",
        "file is out of date. Requirements no test covers yet are listed in",
        "[protocol.md §10](protocol.md#10-requirements-not-yet-covered-by-a-test), with reasons.",
        "",
        f"{len(reqs)} requirements: {sum(1 for r in reqs if r in covered)} covered, "
        f"{sum(1 for r in reqs if r not in covered)} not yet.",
        "",
        "| id | requirement | tests |",
        "| --- | --- | --- |",
    ]

    def order(rid: str) -> tuple[str, int]:
        prefix, number = rid.split("-")
        return prefix, int(number)

    for rid in sorted(reqs, key=order):
        where, sentence = reqs[rid]
        tests = covered.get(rid)
        if tests:
            cell = "<br>".join(f"`{t}`" for t in tests)
        else:
            cell = f"not yet: {pending.get(rid, '?')}"
        text = sentence.replace("|", "\\|")
        lines.append(f"| {rid} ({Path(where).name}) | {text} | {cell} |")
    return "\n".join(lines) + "\n"


def test_every_requirement_is_covered_or_listed_as_not_yet() -> None:
    reqs, covered, pending = requirements(), coverage(), not_yet()
    missing = sorted(r for r in reqs if r not in covered and r not in pending)
    assert not missing, f"requirements no test names (add '# covers: ID'): {missing}"
    stale = sorted(r for r in pending if r in covered)
    assert not stale, f"listed as not yet covered but a test names them: {stale}"
    unknown = sorted(r for r in list(covered) + list(pending) if r not in reqs)
    assert not unknown, f"ids named by tests or the list that the spec does not define: {unknown}"


def test_every_must_has_an_id() -> None:
    """In the normative documents every paragraph or list item with MUST has an id."""
    for name in ("protocol.md", "rules/wire.md"):
        text = (SPEC / name).read_text()
        inherit = False
        for paragraph in re.split(r"\n\s*\n", text):
            blocks = re.split(r"\n(?=\s*[*-] )", paragraph)
            if not re.match(r"\s*[*-] ", blocks[0]):
                # A lead-in: the list items after it belong to its requirement if it has an
                # id and ends with a colon.
                lead = blocks.pop(0)
                assert not KEYWORD.search(lead) or "BCP 14" in lead or DEFINED.search(lead), (
                    f"{name}: a MUST without an id: {lead.strip()!r}"
                )
                inherit = bool(DEFINED.search(lead)) and lead.rstrip().endswith(":")
            for block in blocks:
                ok = not KEYWORD.search(block) or DEFINED.search(block) or inherit
                assert ok, f"{name}: a MUST without an id: {block.strip()!r}"


def test_the_table_is_up_to_date() -> None:
    assert TABLE.read_text() == render(), "run: python tests/spec/test_must_coverage.py --write"


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        TABLE.write_text(render())
    else:
        sys.stdout.write(render())
