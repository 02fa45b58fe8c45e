#!/usr/bin/env python3
"""Coverage figures of an instrumented build (./dev coverage), from gcovr.

usage: coverage_report.py SOURCE_DIR BUILD_DIR

Runs gcovr over BUILD_DIR's .gcda files (the counts of the test run that made them),
writes BUILD_DIR/coverage/index.html (a page per source file) and coverage.json, and
prints:
  - line and branch coverage per layer (each folder under src/, and include/) and in
    total, against the goal of 90% of lines in every layer;
  - the public C API functions (every sluice_* that include/sluice/sluice.h declares)
    that no test called, from the function counts of src/capi;
  - the ErrorCode enumerators that no test raised: for each, the lines of src/ that
    produce it (ErrorCode::name, or ErrorCategory::category for a category's general
    code; not a `case`, a comparison, a comment or src/core/error.cpp's tables), and
    whether the run executed any of them.
Branches are counted without the ones GCC adds for exceptions and for code it proved
unreachable (gcovr's --exclude-throw-branches, --exclude-unreachable-branches): those
are not decisions in our source.
Exits 0 after printing, whatever the figures (see the Coverage section of
docs/testing.md for why). An object directory gcovr cannot read (objects rebuilt
after the counts were written) is named on stderr and left out of the figures.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
from collections import defaultdict

LINE_GOAL = 90.0
# The tables that map codes to names and categories name every code without raising it.
CODE_TABLES = {"src/core/error.cpp"}
# A mention that tests or maps a code rather than making an Error of it.
NOT_A_SITE = re.compile(r"(case\s+|[=!]=\s*)(sluice::)?$")


def gcovr(source_dir, search_dir, *outputs):
    """gcovr over the .gcda files below `search_dir`, with our filters and exclusions."""
    command = [
        "gcovr", "--root", source_dir,
        "--filter", os.path.join(source_dir, "src") + "/",
        "--filter", os.path.join(source_dir, "include") + "/",
        "--exclude-throw-branches", "--exclude-unreachable-branches",
        # No -j: gcovr 5.2's parallel gcov runs hung here, holding no CPU.
        "--gcov-ignore-parse-errors", *outputs, search_dir,
    ]
    # gcov writes its .gcov files where it runs, and gcovr leaves them when it fails:
    # a scratch folder keeps them out of the tree.
    with tempfile.TemporaryDirectory() as scratch:
        return subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, cwd=scratch)


def merge(files, more):
    """Adds gcovr JSON `more` into {path: {"lines": {n: line}, "functions": {key: f}}}."""
    for entry in more:
        into = files.setdefault(entry["file"], {"lines": {}, "functions": {}})
        for line in entry["lines"]:
            had = into["lines"].setdefault(line["line_number"], dict(line, count=0, branches=[]))
            had["count"] += line["count"]
            had["gcovr/noncode"] = had.get("gcovr/noncode", True) and line.get("gcovr/noncode")
            if len(had["branches"]) < len(line["branches"]):
                had["branches"] += [{"count": 0}] * (len(line["branches"]) - len(had["branches"]))
            for branch, counted in zip(had["branches"], line["branches"]):
                branch["count"] = branch["count"] + counted["count"]
        for function in entry.get("functions", []):
            had = into["functions"].setdefault(function["name"], dict(function, execution_count=0))
            had["execution_count"] += function["execution_count"]


def merge_each_object(source_dir, folder, data, merged):
    """gcovr over each object of `folder` alone (its .gcda and .gcno linked into a
    scratch folder), merged here, where two objects' views of one function need not
    agree on its line. Returns the objects gcovr could not read even alone."""
    failed = []
    for root, _, names in os.walk(folder):
        for name in sorted(n for n in names if n.endswith(".gcda")):
            stem = os.path.join(root, name[:-len(".gcda")])
            with tempfile.TemporaryDirectory() as alone:
                for suffix in (".gcda", ".gcno"):
                    if os.path.exists(stem + suffix):
                        os.symlink(os.path.abspath(stem + suffix),
                                   os.path.join(alone, os.path.basename(stem) + suffix))
                if gcovr(source_dir, alone, "--json", data).returncode != 0:
                    failed.append(os.path.relpath(stem, folder))
                    continue
            with open(data, encoding="utf-8") as f:
                merge(merged, json.load(f)["files"])
    return failed


def has_counts(folder):
    return any(name.endswith(".gcda") for _, _, names in os.walk(folder) for name in names)


def run_gcovr(source_dir, build_dir):
    """The merged counts of every object directory (one gcovr run each: gcovr 5.2 stops
    on an assertion when two objects saw a function at different lines, as objects
    built before and after an edit of a header do), and the HTML report."""
    out = os.path.join(build_dir, "coverage")
    os.makedirs(out, exist_ok=True)
    data = os.path.join(out, "part.json")
    merged = {}
    for folder, _, names in sorted(os.walk(build_dir)):
        if not folder.endswith(".dir") or not has_counts(folder):
            continue
        done = gcovr(source_dir, folder, "--json", data)
        if done.returncode == 0:
            with open(data, encoding="utf-8") as f:
                merge(merged, json.load(f)["files"])
            continue
        failed = merge_each_object(source_dir, folder, data, merged)
        where = os.path.relpath(folder, build_dir)
        print(f"coverage: gcovr failed on {where} as a whole; read object by object"
              + (f", {len(failed)} left out: {', '.join(failed)}" if failed else ""),
              file=sys.stderr)
    html = os.path.join(out, "index.html")
    if gcovr(source_dir, build_dir, "--html-details", html, "--html-title",
             "sluice coverage").returncode != 0:
        print("coverage: gcovr could not make the HTML report of the whole build",
              file=sys.stderr)
    files = [{"file": path, "lines": list(entry["lines"].values()),
              "functions": list(entry["functions"].values())} for path, entry in merged.items()]
    with open(os.path.join(out, "coverage.json"), "w", encoding="utf-8") as f:
        json.dump({"files": files}, f)
    return files, out


def layer_of(path):
    parts = path.split("/")
    if parts[0] == "src" and len(parts) > 2:
        return "src/" + parts[1]
    return parts[0]


def percent(covered, total):
    return 100.0 * covered / total if total else 100.0


def print_layers(files):
    sums = defaultdict(lambda: [0, 0, 0, 0])  # lines covered, lines, branches covered, branches
    for entry in files:
        row = sums[layer_of(entry["file"])]
        for line in entry["lines"]:
            if line.get("gcovr/noncode"):
                continue
            row[0] += line["count"] > 0
            row[1] += 1
            row[2] += sum(branch["count"] > 0 for branch in line["branches"])
            row[3] += len(line["branches"])
    print(f"{'layer':<16}{'lines':>8}{'of':>8}{'branches':>10}{'of':>8}"
          f"  goal {LINE_GOAL:.0f}% of lines")
    total = [0, 0, 0, 0]
    below = []
    for layer in sorted(sums):
        row = sums[layer]
        total = [a + b for a, b in zip(total, row)]
        lines = percent(row[0], row[1])
        mark = "" if lines >= LINE_GOAL else "  below"
        if mark:
            below.append(layer)
        print(f"{layer:<16}{lines:>7.1f}%{row[1]:>8}"
              f"{percent(row[2], row[3]):>9.1f}%{row[3]:>8}{mark}")
    print(f"{'total':<16}{percent(total[0], total[1]):>7.1f}%{total[1]:>8}"
          f"{percent(total[2], total[3]):>9.1f}%{total[3]:>8}")
    return below


def c_api_functions(source_dir):
    with open(os.path.join(source_dir, "include/sluice/sluice.h"), encoding="utf-8") as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    return sorted(set(re.findall(r"\b(sluice_[a-z0-9_]+)\s*\(", text)))


def print_c_api(source_dir, files):
    called = defaultdict(int)
    for entry in files:
        if not entry["file"].startswith("src/capi/"):
            continue
        for function in entry.get("functions", []):
            called[function["name"]] += function["execution_count"]
    declared = c_api_functions(source_dir)
    missing = [name for name in declared if name not in called]
    uncalled = [name for name in declared if name in called and called[name] == 0]
    print(f"C API: {len(declared) - len(missing) - len(uncalled)} of {len(declared)} "
          "functions of sluice.h called by a test")
    for name in uncalled:
        print(f"  not called: {name}")
    for name in missing:
        print(f"  not in src/capi's coverage data (not defined there?): {name}")
    return uncalled + missing


def error_codes(source_dir):
    """[(name, value)] of ErrorCode and [name] of ErrorCategory, in declaration order."""
    with open(os.path.join(source_dir, "include/sluice/error.hpp"), encoding="utf-8") as f:
        text = f.read()

    def body(name):
        found = re.search(r"enum class " + name + r"\b[^{]*\{(.*?)\};", text, flags=re.S)
        return re.sub(r"//[^\n]*", "", found.group(1))

    codes = [(m.group(1), int(m.group(2)))
             for m in re.finditer(r"\b([a-z0-9_]+)\s*=\s*(\d+)", body("ErrorCode"))]
    categories = re.findall(r"\b([a-z0-9_]+)\b", body("ErrorCategory"))
    return codes, categories


def code_part(line):
    """The line up to a // comment that is not inside a string literal."""
    quoted = False
    for i, char in enumerate(line):
        if char == '"' and (i == 0 or line[i - 1] != "\\"):
            quoted = not quoted
        elif not quoted and line.startswith("//", i):
            return line[:i]
    return line


def raise_sites(source_dir, codes, categories):
    """{code name: [(path, line number)]}: the lines that make an Error of that code."""
    tokens = {f"ErrorCode::{name}": name for name, _ in codes}
    for name, value in codes:
        if value % 100 == 0 and 0 < value // 100 <= len(categories):
            tokens[f"ErrorCategory::{categories[value // 100 - 1]}"] = name
    pattern = re.compile(r"\b(ErrorCode|ErrorCategory)::[a-z0-9_]+\b")
    sites = defaultdict(list)
    for folder, _, names in sorted(os.walk(os.path.join(source_dir, "src"))):
        for file_name in sorted(names):
            if not file_name.endswith((".cpp", ".hpp")):
                continue
            path = os.path.relpath(os.path.join(folder, file_name), source_dir)
            if path in CODE_TABLES:
                continue
            with open(os.path.join(source_dir, path), encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    code = code_part(line)
                    if code.lstrip().startswith("*"):
                        continue
                    for match in pattern.finditer(code):
                        name = tokens.get(match.group(0))
                        if name and not NOT_A_SITE.search(code[:match.start()]):
                            sites[name].append((path, number))
    return sites


def executed(counts, text, number):
    """Whether the statement holding line `number` ran: a line without code of its own
    (an argument on a continuation line) takes the count of the statement's first line.
    None when no line of the statement has code (static data: not measurable)."""
    for at in range(number, max(number - 8, 0), -1):
        if at != number and text[at - 1].rstrip().endswith((";", "{", "}")):
            break  # the statement before: the site's own began below it
        if at in counts:
            return counts[at] > 0
    return None


def print_error_codes(source_dir, files):
    counts = {entry["file"]: {line["line_number"]: line["count"] for line in entry["lines"]
                              if not line.get("gcovr/noncode")} for entry in files}
    texts = {}

    def ran(path, number):
        if path not in texts:
            with open(os.path.join(source_dir, path), encoding="utf-8") as f:
                texts[path] = f.read().split("\n")
        return executed(counts.get(path, {}), texts[path], number)

    codes, categories = error_codes(source_dir)
    sites = raise_sites(source_dir, codes, categories)
    never = [(name, value) for name, value in codes
             if not any(ran(path, number) for path, number in sites[name])]
    print(f"ErrorCode: {len(codes) - len(never)} of {len(codes)} raised by a test")
    for name, value in never:
        where = sites[name]
        shown = ", ".join(f"{path}:{number}" for path, number in where[:3])
        more = f" and {len(where) - 3} more" if len(where) > 3 else ""
        print(f"  never raised: {name} ({value}): "
              + (f"not run at {shown}{more}" if where else "no line of src/ makes it"))
    return never


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    source_dir, build_dir = (os.path.abspath(arg) for arg in sys.argv[1:])
    files, out = run_gcovr(source_dir, build_dir)
    below = print_layers(files)
    uncalled = print_c_api(source_dir, files)
    never = print_error_codes(source_dir, files)
    goals = []
    if below:
        goals.append(f"{len(below)} layer(s) under {LINE_GOAL:.0f}% of lines")
    if uncalled:
        goals.append(f"{len(uncalled)} C function(s) not called")
    if never:
        goals.append(f"{len(never)} ErrorCode(s) never raised")
    print("goals: " + ("all met" if not goals else "not met: " + "; ".join(goals)))
    print(f"HTML report: {os.path.relpath(os.path.join(out, 'index.html'))}")


if __name__ == "__main__":
    main()
