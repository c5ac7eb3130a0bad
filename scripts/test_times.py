#!/usr/bin/env python3
"""scripts/test.sh's clock: each section's wall and CPU time, and the report at the end.

  test_times.py run FILE -- CMD...   run CMD; write "exit wall_s cpu_s" to FILE (CPU: user + system of
                                     CMD and every process it waited for); exit with CMD's status
  test_times.py report DIR BUDGET    the ten slowest tests of the sections in DIR, then each section's
                                     wall and CPU time beside its budget; a warning for each section
                                     over its budget by more than 50% (a warning only: timings never
                                     fail a test)

DIR holds, per section NAME: NAME.time (from run) and NAME.tests, lines "seconds<TAB>test name".
BUDGET: lines "section seconds" (the wall time a section may take; # starts a comment).
"""
import os
import resource
import subprocess
import sys
import time


def run(out, cmd):
    t0, r0 = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
    rc = subprocess.call(cmd)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    with open(out, 'w') as f:
        f.write(f'{rc} {time.monotonic() - t0:.1f} {cpu:.1f}\n')
    return rc


def report(d, budget_file):
    budget = {}
    with open(budget_file) as f:
        for line in f:
            w = line.split('#')[0].split()
            if len(w) == 2:
                budget[w[0]] = float(w[1])
    sections, tests = [], []
    for name in sorted(os.listdir(d)):
        if name.endswith('.time'):
            with open(os.path.join(d, name)) as f:
                rc, wall, cpu = f.read().split()
            sections.append((os.path.getmtime(os.path.join(d, name)), name[:-5], float(wall), float(cpu)))
        elif name.endswith('.tests'):
            with open(os.path.join(d, name)) as f:
                for line in f:
                    s, _, t = line.rstrip('\n').partition('\t')
                    tests.append((float(s), f'{name[:-6]}: {t}'))
    print('=== the ten slowest tests (seconds)')
    for s, t in sorted(tests, reverse=True)[:10]:
        print(f'{s:7.1f}  {t}')
    print('=== sections: wall and CPU (user + system) seconds, budget (tests/time_budget.txt)')
    warnings = []
    for _, name, wall, cpu in sorted(sections):
        b = budget.get(name)
        note = ''
        if b is None:
            note = '  (no budget)'
        elif wall > 1.5 * b:
            note = '  OVER BUDGET'
            warnings.append(f'warning: section {name} took {wall:.0f} s, over its budget of {b:.0f} s by '
                            f'{100 * (wall / b - 1):.0f}% (more than 50%: find what grew; a loaded machine is '
                            'slower too, compare the CPU time)')
        print(f'{name:16s} {wall:7.1f} {cpu:8.1f} {b if b is not None else "-":>7}{note}')
    for w in warnings:
        print(w)


if __name__ == '__main__':
    a = sys.argv[1:]
    if len(a) >= 4 and a[0] == 'run' and a[2] == '--':
        sys.exit(run(a[1], a[3:]))
    if len(a) == 3 and a[0] == 'report':
        sys.exit(report(a[1], a[2]))
    sys.exit(__doc__)
