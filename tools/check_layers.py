#!/usr/bin/env python3
"""Fails when a module of src/ includes a module it may not use.

The table of modules is the one in docs/design.md (section "Modules"): a Markdown table whose
first column is a module (a folder of src/, in backquotes) and whose last column lists, in
backquotes, the modules it may use ("–" for none). The build runs this check before it compiles
librelay, so the drawn layout and the code cannot drift apart: an include of a module above
(e.g. coll including tune/...) fails the build with the file, the line and the rule.

With --cmake src/CMakeLists.txt it also checks each relay_module(<name> USES ...) declaration
(the CMake library of a module) against the same table: the build's declared dependencies are
the drawn ones.

Usage: check_layers.py --design docs/design.md --src src [--cmake src/CMakeLists.txt] [--stamp FILE]
"""
import argparse
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/[^"]+"')
SOURCE_SUFFIXES = {".cpp", ".hpp", ".h", ".c"}


def read_table(design: pathlib.Path) -> dict:
    """{module: set of modules it may use}, from the "Modules" section's table."""
    allowed = {}
    in_section = False
    for line in design.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            in_section = line.strip().lower().startswith("## modules")
            continue
        if not in_section or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2:
            continue
        names = re.findall(r"`([a-z_]+)`", cells[0])
        if not names:  # the header row or the separator
            continue
        uses = set(re.findall(r"`([a-z_]+)`", cells[-1]))
        for name in names:  # a row may hold several modules ("`topology`, `layout`")
            allowed[name] = uses
    return allowed


def check(src: pathlib.Path, allowed: dict) -> list:
    errors = []
    folders = sorted(p.name for p in src.iterdir() if p.is_dir())
    for folder in folders:
        if folder not in allowed:
            errors.append(f"src/{folder}/: not in the Modules table of docs/design.md")
    for module, uses in allowed.items():
        for used in sorted(uses - set(allowed)):
            errors.append(f"docs/design.md: {module} may use '{used}', which is not a module")
        if not (src / module).is_dir():
            errors.append(f"docs/design.md: module '{module}' has no folder src/{module}/")
    for path in sorted(src.rglob("*")):
        if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
            continue
        module = path.relative_to(src).parts[0]
        if module not in allowed:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            used = m.group(1)
            if used == module or used not in folders:  # own headers; "relay/..." public API
                continue
            if used not in allowed[module]:
                may = ", ".join(sorted(allowed[module])) or "nothing"
                errors.append(f"{path}:{number}: {module} includes {used}/ but may use only "
                              f"{may} (docs/design.md, Modules)")
    return errors


MODULE_CALL = re.compile(r"relay_module\(\s*([a-z_]+)((?:\s+[A-Za-z_:.${}/]+)*?)\s+SOURCES\b")


def check_cmake(cmake: pathlib.Path, allowed: dict) -> list:
    """Each relay_module(<name> [USES ...] [LIBS ...] SOURCES ...) declares its table row."""
    errors = []
    text = re.sub(r"#[^\n]*", "", cmake.read_text(encoding="utf-8"))
    calls = MODULE_CALL.findall(text)
    if not calls:
        errors.append(f"{cmake}: no relay_module(...) declarations found")
    for name, args in calls:
        words = args.split()
        uses, section = set(), None
        for word in words:
            if word in ("USES", "LIBS"):
                section = word
            elif section == "USES":
                uses.add(word)
        if name not in allowed:
            errors.append(f"{cmake}: relay_module({name}) is not in the Modules table of docs/design.md")
            continue
        if uses != allowed[name]:
            declared = ", ".join(sorted(uses)) or "nothing"
            drawn = ", ".join(sorted(allowed[name])) or "nothing"
            errors.append(f"{cmake}: relay_module({name}) USES {declared}, but docs/design.md "
                          f"says it may use {drawn}")
    return errors


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--design", required=True, type=pathlib.Path)
    parser.add_argument("--src", required=True, type=pathlib.Path)
    parser.add_argument("--cmake", type=pathlib.Path,
                        help="a CMakeLists.txt whose relay_module() calls must match the table")
    parser.add_argument("--stamp", type=pathlib.Path, help="touched when the check passes")
    args = parser.parse_args()
    allowed = read_table(args.design)
    if not allowed:
        print(f"check_layers: no Modules table in {args.design}", file=sys.stderr)
        return 1
    errors = check(args.src, allowed)
    if args.cmake:
        errors += check_cmake(args.cmake, allowed)
    for e in errors:
        print(f"check_layers: {e}", file=sys.stderr)
    if errors:
        return 1
    if args.stamp:
        args.stamp.write_text("ok\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
