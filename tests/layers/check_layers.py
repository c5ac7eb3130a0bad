#!/usr/bin/env python3
"""One direction of dependency (docs/design.md, "Layers and source layout"): every #include "..."
is folder-qualified and goes to the file's own folder or to a layer below it; model/ never sees MPI;
no function in cmd/ is longer than --max-lines. Exit 0 when the tree keeps the rules, 1 with one
line per broken rule.

    check_layers.py ROOT              check the tree at ROOT
    check_layers.py ROOT --self-test  also prove that an upward include, a bare include, an MPI
                                      include in model/ and an over-long command function are caught
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# folder -> folders it may include from (its own included). Commands on top, then the operators,
# then rdmo/ (composite remote operations), then rma/, then bench/; model/ (the equations) depends on
# bench/ only; tests may use anything.
ALLOWED = {
    "bench": {"bench"},
    "rma": {"rma", "bench"},
    "rdmo": {"rdmo", "rma", "bench"},
    "model": {"model", "bench"},
    "joins": {"joins", "rma", "bench"},
    "locking": {"locking", "rdmo", "rma", "bench"},
    "aggregate": {"aggregate", "rdmo", "rma", "bench"},
    "cmd": {"cmd", "joins", "locking", "aggregate", "model", "rdmo", "rma", "bench"},
    "tests": {"tests", "cmd", "joins", "locking", "aggregate", "model", "rdmo", "rma", "bench"},
}
GENERATED = {"bench/version.h", "bench/rmb_config.h", "joins/radix/exchange_list.h"}  # written into the build tree by meson, and
# The folders whose functions stay short, and what a function there reads as.
SHORT_FUNCTIONS = {
    "cmd": "commands read as their phases (setup, run, verify, report, record)",
    "joins": "an operator reads as its phases (a phase_clock times them: bench/phases.h)",
    "locking": "an operator reads as its phases",
    "aggregate": "an operator reads as its phases",
    "rdmo": "an operation reads as its steps",
}
# bench/ headers that need MPI: model/ may include none of them
MPI_HEADERS = {"bench/context.h", "bench/phases.h", "bench/memory.h", "bench/numa_topology.h", "bench/wait_bound.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def sources(root):
    for top in ALLOWED:
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, n), root)


def function_lengths(text):
    """(name, first line, length) of every function defined at file scope with its opening brace
    in column 0 on its own line (the project's style)."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        if lines[i] == "{" and i > 0:
            k = i - 1  # the head may span lines: its first line starts in column 0
            while k > 0 and lines[k][:1] in (" ", "\t"):
                k -= 1
            head = lines[k]
            m = re.search(r"(\w+)\s*\(", head)
            j = i + 1
            while j < len(lines) and lines[j] != "}":
                j += 1
            if m and not head.startswith((" ", "\t", "#")) and "=" not in head.split("(")[0]:
                out.append((m.group(1), i, j - i + 1))
            i = j
        i += 1
    return out


def check(root, max_lines):
    errors = []
    for rel in sources(root):
        folder = rel.split(os.sep)[0]
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for n, line in enumerate(text.split("\n"), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            kind, name = m.groups()
            where = f"{rel}:{n}"
            if kind == "<":
                if folder == "model" and name == "mpi.h":
                    errors.append(f"{where}: model/ holds the equations without MPI, but includes <mpi.h>")
                continue
            target = name.split("/")[0]
            if "/" not in name or target not in ALLOWED:
                errors.append(f'{where}: "{name}" is not folder-qualified (write "<folder>/{os.path.basename(name)}")')
                continue
            if name not in GENERATED and not os.path.exists(os.path.join(root, name)):
                errors.append(f'{where}: "{name}" does not exist')
                continue
            if target not in ALLOWED[folder]:
                errors.append(f'{where}: {folder}/ includes "{name}" from {target}/, a layer above it')
            if folder == "model" and name in MPI_HEADERS:
                errors.append(f'{where}: model/ holds the equations without MPI, but includes "{name}"')
        if folder in SHORT_FUNCTIONS and rel.endswith(".c"):
            for fn, first, length in function_lengths(text):
                if length > max_lines:
                    errors.append(f"{rel}:{first}: {fn}() is {length} lines; {SHORT_FUNCTIONS[folder]}: split it "
                                  f"(limit {max_lines})")
    return errors


def self_test(root, max_lines):
    """Each deliberate fault, added to a copy of the tree, must be reported."""
    faults = [
        ("rma/window.c", '#include "cmd/commands.h"\n', "a layer above it"),
        ("joins/generate.c", '#include "locking/modes.h"\n', "a layer above it"),
        ("bench/options.c", '#include "rma/window.h"\n', "a layer above it"),
        ("rdmo/wire.c", '#include "locking/modes.h"\n', "a layer above it"),
        ("locking/modes.c", '#include "modes.h"\n', "not folder-qualified"),
        ("model/params.c", "#include <mpi.h>\n", "without MPI"),
        ("model/params.c", '#include "bench/context.h"\n', "without MPI"),
        ("cmd/main.c", "int rmb_long_fn(void)\n{\n" + "    (void)0;\n" * (max_lines + 1) + "}\n", "split it"),
        ("joins/generate.c", "int rmb_long_fn(void)\n{\n" + "    (void)0;\n" * (max_lines + 1) + "}\n", "split it"),
        ("locking/modes.c", "int rmb_long_fn(void)\n{\n" + "    (void)0;\n" * (max_lines + 1) + "}\n", "split it"),
    ]
    failed = 0
    for path, text, expect in faults:
        with tempfile.TemporaryDirectory() as tmp:
            for top in ALLOWED:
                if os.path.isdir(os.path.join(root, top)):
                    shutil.copytree(os.path.join(root, top), os.path.join(tmp, top))
            with open(os.path.join(tmp, path), "a") as f:
                f.write(text)
            errs = check(tmp, max_lines)
            ok = any(expect in e for e in errs)
            print(f"self-test: {path} + {text.splitlines()[0]!r}: {'caught' if ok else 'NOT CAUGHT'}")
            failed += not ok
    return failed


def main(argv):
    root = argv[1] if len(argv) > 1 and not argv[1].startswith("--") else "."
    max_lines = 80
    if "--max-lines" in argv:
        max_lines = int(argv[argv.index("--max-lines") + 1])
    errors = check(root, max_lines)
    for e in errors:
        print(e)
    print(f"layers: {len(errors)} problem(s) in {sum(1 for _ in sources(root))} files")
    bad = len(errors) > 0
    if "--self-test" in argv:
        bad |= self_test(root, max_lines) > 0
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
