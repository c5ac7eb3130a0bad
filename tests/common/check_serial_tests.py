#!/usr/bin/env python3
"""Every test that runs alone (is_parallel false) is in suite 'alone' or 'netns' (tests/meson.build),
or starts before every other test (a priority above all the parallel tests': the sanitizers' sweeps).

    check_serial_tests.py BUILD_DIR      the build's tests (meson-info/intro-tests.json)
    check_serial_tests.py --self-test    a list with such a test left among the others is reported

meson starts a test with is_parallel false only when every test started before it has ended, so
one left among the parallel tests idles the other cores until the longest test beside it ends
(scripts/test.sh runs 'alone' first with nothing beside it, and 'netns' in its own section); one
that meson starts first has nothing to wait for. Only in a build whose MPI tests run beside each
other: under MPICH they all run one at a time by design.
Prints one line per misplaced test; exits 1 if there is one."""
import json
import os
import sys

SERIAL_SUITES = ('alone', 'netns')


def misplaced(tests):
    """The names of the tests that run alone, in neither serial suite, and not first."""
    first = max((t['priority'] for t in tests if t['is_parallel']), default=0)
    out = []
    for t in tests:
        suites = {s.split(':')[-1] for s in t['suite']}
        if not t['is_parallel'] and not suites & set(SERIAL_SUITES) and t['priority'] <= first:
            out.append(t['name'])
    return out


def self_test():
    ok = {'name': 'mpi/a', 'suite': ['rmabench:mpi'], 'is_parallel': True, 'priority': 5}
    alone = {'name': 'mpi/b', 'suite': ['rmabench:mpi', 'rmabench:alone'], 'is_parallel': False, 'priority': 0}
    netns = {'name': 'jobs/c', 'suite': ['rmabench:netns'], 'is_parallel': False, 'priority': 0}
    first = {'name': 'asan/e', 'suite': ['rmabench:asan'], 'is_parallel': False, 'priority': 10}
    stray = {'name': 'faults/d', 'suite': ['rmabench:faults'], 'is_parallel': False, 'priority': 0}
    late = dict(first, name='asan/f', priority=5)  # ties with a parallel test: may start after it
    if misplaced([ok, alone, netns, first]) != [] or misplaced([ok, stray, alone]) != ['faults/d'] or \
            misplaced([ok, late]) != ['asan/f']:
        print('check_serial_tests: self-test failed: a stray serial test is not told from a placed one')
        return False
    return True


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.split('\n\n')[1])
    if sys.argv[1] == '--self-test':
        return 0 if self_test() else 1
    path = os.path.join(sys.argv[1], 'meson-info', 'intro-tests.json')
    try:
        with open(path) as f:
            tests = json.load(f)
    except (OSError, ValueError) as e:
        print(f'check_serial_tests: {path}: {e}')
        return 1
    bad = misplaced(tests)
    for name in bad:
        print(f'{name}: is_parallel false outside the suites {" and ".join(SERIAL_SUITES)}, not started first: '
              'it would idle the cores beside it (tests/meson.build, suite \'alone\')')
    print(f'serial tests: {sum(not t["is_parallel"] for t in tests)} of {len(tests)}, {len(bad)} misplaced')
    return 1 if bad or not self_test() else 0


if __name__ == '__main__':
    sys.exit(main())
