#!/usr/bin/env python3
"""Checks every relative link of README.md and docs/*.md (label docs).

usage: check_links.py SOURCE_DIR

A link [text](path) or [text](path#anchor), outside code spans and fenced blocks, must name a file
or folder that exists (relative to the page); an anchor into a Markdown file (or the page itself,
[text](#anchor)) must be one of its headings, as GitHub makes anchors from them. Links with a
scheme (https:, mailto:) are not followed. Every docs/*.md page must be linked from README.md.
"""
import glob
import os
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*```")


def prose(path):
    """The page's lines outside fenced blocks, with inline code spans blanked."""
    inside = False
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            yield number, re.sub(r"`[^`]*`", "", line)


def anchors(path):
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to '-', repeats numbered."""
    seen, result = {}, set()
    inside = False
    for line in open(path, encoding="utf-8"):
        if FENCE.match(line):
            inside = not inside
            continue
        m = None if inside else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            result.add(slug if n == 0 else f"{slug}-{n}")
    return result


def main():
    source = os.path.abspath(sys.argv[1])
    pages = [os.path.join(source, "README.md")] + sorted(glob.glob(os.path.join(source, "docs", "*.md")))
    errors = []
    linked_from_readme = set()
    for page in pages:
        shown = os.path.relpath(page, source)
        for number, line in prose(page):
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue
                path, _, anchor = target.partition("#")
                resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
                if page == pages[0]:
                    linked_from_readme.add(resolved)
                if not os.path.exists(resolved):
                    errors.append(f"{shown}:{number}: {target}: no such file")
                elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                    errors.append(f"{shown}:{number}: {target}: no heading with anchor #{anchor}")
    for page in pages[1:]:
        if page not in linked_from_readme:
            errors.append(f"{os.path.relpath(page, source)}: not linked from README.md")
    for error in errors:
        print(error)
    print(f"{len(errors)} broken link(s) in {len(pages)} pages" if errors else f"ok: links of {len(pages)} pages")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
