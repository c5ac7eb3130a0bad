#!/usr/bin/env python3
"""The mutants stay outside the production code and stay applicable (tests/mutants/README.md):
  - every line of mutants.txt has its NAME.patch and every patch its line;
  - a patch starts with "NAME: what it breaks", then `git diff` text that changes only C sources and
    headers outside tests/ (the runner rebuilds a copy of the build directory, which must not need
    meson to reconfigure);
  - every patch applies to the current source tree (`git apply --check`): a change to the code
    around a mutant must carry the patch along;
  - no production file (outside tests/) names an RMB_MUTANT_ switch.
    check_patches.py SOURCE_ROOT"""
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_mutants import read_table  # noqa: E402

root = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else '.')
here = os.path.join(root, 'tests', 'mutants')
errors = []
names = [m['name'] for m in read_table(os.path.join(here, 'mutants.txt'))]
patches = sorted(f[:-len('.patch')] for f in os.listdir(here) if f.endswith('.patch'))
for n in sorted(set(names) - set(patches)):
    errors.append(f'mutants.txt names {n}, but there is no tests/mutants/{n}.patch')
for n in sorted(set(patches) - set(names)):
    errors.append(f'tests/mutants/{n}.patch has no line in mutants.txt')
for n in sorted(set(names) & set(patches)):
    path = os.path.join(here, n + '.patch')
    with open(path) as f:
        text = f.read()
    if not text.startswith(n + ': ') or '\ndiff --git ' not in text:
        errors.append(f'{path}: must start with "{n}: <what it breaks>" and hold `git diff` output')
    for f in re.findall(r'^\+\+\+ b/(\S+)', text, re.M) + re.findall(r'^--- a/(\S+)', text, re.M):
        if f.startswith('tests/') or not f.endswith(('.c', '.h')):
            errors.append(f'{path}: changes {f} (a mutant changes C sources and headers outside tests/ only)')
    r = subprocess.run(['git', 'apply', '--check', path], cwd=root, capture_output=True, text=True)
    if r.returncode != 0:
        errors.append(f'{path} does not apply to the source tree (update it with the code it mutates):\n'
                      + r.stderr.rstrip())
for d, dirs, files in os.walk(root):
    rel = os.path.relpath(d, root)
    if rel == '.':
        dirs[:] = [x for x in dirs if not (x.startswith('build') or x.startswith('.') or x == 'tests')]
    for f in files:
        if f.endswith(('.c', '.h', '.in', '.build', '.txt')):
            with open(os.path.join(d, f), errors='replace') as fh:
                if 'RMB_MUTANT' in fh.read():
                    errors.append(f'{os.path.normpath(os.path.join(rel, f))}: names an RMB_MUTANT switch '
                                  '(a mutant is a patch under tests/mutants/)')
print('\n'.join(errors) if errors else f'{len(names)} mutants, each a patch that applies; no mutant switch in the sources')
sys.exit(1 if errors else 0)
