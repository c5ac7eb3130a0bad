#!/usr/bin/env python3
"""The mutation suite (tests/mutants/README.md): every mutant of mutants.txt for the library of a
build directory must be reported by the default invocation of the command it breaks
(`verification: FAIL`, exit 1) and by every test listed for it (each must fail).

    run_mutants.py BUILD_DIR [--jobs N] [NAME...]

BUILD_DIR is a meson build directory of this source tree (build/ or build-mpich/). It is brought up
to date, then copied with a copy of the source files into build-mutants/ (one copy per job, file
times kept, so that nothing there needs building); each job applies a mutant's patch to its copy,
rebuilds rmabench and the listed tests' programs (only the objects the patch touches recompile),
runs the default invocation and the tests, and reverts the patch. Prints a line per mutant and
"mutants: N caught of N (LIBRARY)"; exits 1 if a mutant survives, does not apply or does not build.
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.realpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
HERE = os.path.join(ROOT, 'tests', 'mutants')
MPI_ENV = {'OMPI_ALLOW_RUN_AS_ROOT': '1', 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1',
           'OMPI_MCA_rmaps_base_oversubscribe': '1', 'OMPI_MCA_mpi_yield_when_idle': '1', 'HWLOC_HIDE_ERRORS': '1'}


def read_table(path=os.path.join(HERE, 'mutants.txt')):
    """mutants.txt: name | libraries | ranks | default invocation | tests that must fail"""
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith('#'):
                continue
            cols = [c.strip() for c in line.split('|')]
            if len(cols) != 5 or not cols[0] or cols[1] not in ('both', 'openmpi', 'mpich') or not cols[2].isdigit():
                sys.exit(f'{path}:{n}: expected "name | both|openmpi|mpich | ranks | invocation | tests"')
            rows.append({'name': cols[0], 'libs': cols[1], 'ranks': int(cols[2]), 'invocation': cols[3].split(),
                         'tests': cols[4].split()})
    return rows


def source_files():
    """The source tree's files (git's tracked and untracked ones, or every file outside build*/)."""
    try:
        out = subprocess.run(['git', '-C', ROOT, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'],
                             capture_output=True, check=True).stdout
        return [f for f in out.decode().split('\0') if f and os.path.isfile(os.path.join(ROOT, f))]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(ROOT):
            dirs[:] = [x for x in dirs if not (d == ROOT and (x.startswith('build') or x == '.git'))]
            files += [os.path.relpath(os.path.join(d, x), ROOT) for x in names]
        return files


def copy_tree(build, scratch, files):
    """scratch/: the source files and scratch/<build's place in the tree>: the build directory, file times
    kept, so that ninja there finds everything up to date."""
    shutil.rmtree(scratch, ignore_errors=True)
    for f in files:
        dst = os.path.join(scratch, f)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(os.path.join(ROOT, f), dst)
    sbuild = os.path.join(scratch, os.path.relpath(build, ROOT))
    def copy(src, dst):  # a test running in the build directory may remove a file of its own meanwhile
        try:
            shutil.copy2(src, dst)
        except FileNotFoundError:
            pass
    shutil.copytree(build, sbuild, symlinks=True, ignore=shutil.ignore_patterns('meson-logs'), copy_function=copy)
    # regenerating the copy's build files would write into the original build directory: the
    # copy's build files never need it (patches touch no meson.build), and must not try
    with open(os.path.join(sbuild, 'build.ninja')) as f:
        text = f.read()
    text = re.sub(r'(rule REGENERATE_BUILD\n command = ).*', r'\1false', text)
    with open(os.path.join(sbuild, 'build.ninja'), 'w') as f:
        f.write(text)
    return sbuild


def relocate(s, build, sbuild, scratch):
    """A path of the original tree as the same path in the copy."""
    for old, new in ((build, sbuild), (ROOT, scratch)):
        if s == old or s.startswith(old + '/'):
            return new + s[len(old):]
    return s


def run(cmd, cwd, env, timeout):
    """(exit status, output) of a command; 124 on a timeout, as timeout(1) says, with all it started killed."""
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode(errors='replace')
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return 124, out.decode(errors='replace') + f'\n(timed out after {timeout} s)'


class Worker:
    def __init__(self, k, build, lib, tests, files, args):
        self.scratch = os.path.join(ROOT, 'build-mutants', f'{os.path.basename(build)}.{k}')
        self.build, self.lib, self.tests, self.args = build, lib, tests, args
        self.sbuild = copy_tree(build, self.scratch, files)
        self.env = dict(os.environ, **MPI_ENV)
        self.tmp = tempfile.mkdtemp(prefix='rmb-mutant-')

    def git_apply(self, patch, *flags):
        # the copy lies inside the source tree's repository: without the ceiling, git would take the
        # patch's paths as the repository's and skip them, as outside the current directory
        env = dict(os.environ, GIT_CEILING_DIRECTORIES=os.path.dirname(self.scratch))
        return subprocess.run(['git', 'apply', *flags, patch], cwd=self.scratch, env=env, capture_output=True, text=True)

    def check(self, m):
        """One mutant: (caught, report line, log of what went wrong)."""
        name, t0 = m['name'], time.time()
        patch = os.path.join(HERE, name + '.patch')
        if not os.path.exists(patch):
            return False, f'mutant {name}: no {os.path.relpath(patch, ROOT)}', ''
        a = self.git_apply(patch)
        if a.returncode != 0:
            return False, f'mutant {name}: patch does not apply', a.stderr
        try:
            return self.check_applied(m, t0)
        finally:
            r = self.git_apply(patch, '-R')
            if r.returncode != 0:  # the copy is no longer the source tree: no later mutant may use it
                raise RuntimeError(f'mutant {name}: cannot revert the patch in {self.scratch}: {r.stderr}')

    def check_applied(self, m, t0):
        name = m['name']
        tests = [self.tests[t] for t in m['tests'] if t in self.tests]
        unknown = [t for t in m['tests'] if t not in self.tests]
        if unknown:
            return False, f'mutant {name}: no test named {" ".join(unknown)} in {self.build}', ''
        # rmabench and the programs the listed tests run, nothing else
        targets = {'rmabench'}
        for t in tests:
            for a in t['cmd']:
                a = os.path.realpath(os.path.join(self.build, a))
                if a.startswith(self.build + os.sep) and os.path.isfile(a):
                    targets.add(os.path.relpath(a, self.build))
        rc, out = run(['ninja', '-C', self.sbuild] + sorted(targets), None, self.env, 600)
        if rc != 0 and 'Regenerating build files' in out:
            return False, f'mutant {name}: {self.build} is out of date (a meson.build changed): build it first', ''
        if rc != 0:
            return False, f'mutant {name}: does not build', out
        if 'no work to do' in out:
            return False, f'mutant {name}: the patch changed nothing that rmabench or the tests are built from', out
        # 1. the default invocation
        mpirun = 'mpirun.mpich' if self.lib == 'mpich' else 'mpirun.openmpi'
        cmd = [mpirun, '-n', str(m['ranks']), os.path.join(self.sbuild, 'rmabench')] + m['invocation']
        rc, out = run(cmd, self.tmp, self.env, 300 * self.args.timeout_multiplier)
        if rc == 1 and re.search(r'^verification: FAIL', out, re.M):
            why = next((l for l in out.splitlines() if 'warning' not in l and
                        re.search(r'rmabench: |invariants: BROKEN|^matches: ', l)), '')
            if len(why) > 120:
                why = why[:117] + '...'  # a cut line says it was cut
            default, ok = f'reported (exit 1: {why})', True
        else:
            npass = len(re.findall(r'^verification: PASS', out, re.M))
            default, ok = f'NOT REPORTED (exit {rc}, {npass} PASS lines)', False
        # 2. the tests, as meson test runs them (in the build directory, their environment and timeout)
        failed, passed, why = 0, [], []
        for t in tests:
            env = dict(self.env, **{k: relocate(v, self.build, self.sbuild, self.scratch) for k, v in t['env'].items()})
            cmd = [relocate(a, self.build, self.sbuild, self.scratch) for a in t['cmd']]
            cwd = relocate(t['workdir'] or self.build, self.build, self.sbuild, self.scratch)
            rc, out = run(cmd, cwd, env, (t['timeout'] or 30) * self.args.timeout_multiplier)
            res = 'SKIP' if rc == 77 else ('OK' if (rc == 0) != bool(t.get('should_fail')) else 'FAIL')
            if res == 'FAIL':
                failed += 1
                # what the test saw, so that a failure for another reason than the mutant can be told
                why.append(f'  {t["name"]}: exit {rc}: ' +
                           next((l for l in out.splitlines() if re.match(r'FAIL|verification: FAIL|.*(ERROR|Assertion)', l)),
                                out.strip().splitlines()[-1] if out.strip() else '')[:200])
            else:
                passed.append(f'{t["name"]}({res})')
        ok = ok and not passed
        line = (f'mutant {name} ({self.lib}, {m["ranks"]} ranks, rmabench {" ".join(m["invocation"])}): '
                f'default run {default}; tests {failed} of {len(tests)} failed'
                f'{" (passed: " + " ".join(passed) + ")" if passed else ""} [{time.time() - t0:.1f} s]')
        return ok, line + ''.join('\n' + w for w in why), ''

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('build_dir')
    ap.add_argument('names', nargs='*', help='only these mutants')
    ap.add_argument('--jobs', type=int, default=0, help='mutants checked at once (default: 3 with Open MPI, '
                    'whose idle ranks yield; 1 with MPICH, whose ranks poll)')
    ap.add_argument('--timeout-multiplier', type=float, default=1.0)
    ap.add_argument('--no-rebuild', action='store_true', help='BUILD_DIR is up to date (scripts/test.sh built it)')
    args = ap.parse_args()
    build = os.path.realpath(args.build_dir)
    if not os.path.isfile(os.path.join(build, 'build.ninja')):
        sys.exit(f'run_mutants.py: {args.build_dir} is not a build directory')
    if not build.startswith(ROOT + os.sep):
        sys.exit(f'run_mutants.py: {args.build_dir} must lie inside the source tree {ROOT}')
    with open(os.path.join(build, 'bench', 'rmb_config.h')) as f:
        lib = re.search(r'#define RMB_MPI_CHOICE "(.*)"', f.read()).group(1)
    rows = [m for m in read_table() if m['libs'] in ('both', lib) and (not args.names or m['name'] in args.names)]
    if args.names and len(rows) != len(set(args.names)):
        sys.exit(f'run_mutants.py: not a mutant for {lib}: ' +
                 ' '.join(sorted(set(args.names) - {m["name"] for m in rows})))
    jobs = args.jobs or (1 if lib == 'mpich' else 3)
    rc, out = (0, '') if args.no_rebuild else run(['ninja', '-C', build], None, None, 1800)
    if rc != 0:
        print(out)
        sys.exit(f'run_mutants.py: {args.build_dir} does not build')
    with open(os.path.join(build, 'meson-info', 'intro-tests.json')) as f:
        tests = {t['name']: t for t in json.load(f)}
    files = source_files()
    workers = [Worker(k, build, lib, tests, files, args) for k in range(min(jobs, len(rows)))]
    # the slowest first (a lock mutant's default run is short), so that the jobs end together
    queue = sorted(rows, key=lambda m: m['invocation'][0] != 'join')
    lock = threading.Lock()
    results = {}

    def work(w):
        while True:
            with lock:
                if not queue:
                    return
                m = queue.pop(0)
            try:
                ok, line, log = w.check(m)
            except RuntimeError as e:
                ok, line, log = False, str(e), ''
                with lock:
                    results[m['name']] = (ok, line, log)
                return
            with lock:
                results[m['name']] = (ok, line, log)
                print(line + ('\n' + log.rstrip() if log and not ok else ''), flush=True)

    threads = [threading.Thread(target=work, args=(w,)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for w in workers:
        w.close()
    survivors = [m['name'] for m in rows if not results.get(m['name'], (False,))[0]]
    caught = len(rows) - len(survivors)
    print(f'mutants: {caught} caught of {len(rows)} ({lib})' + (f'; survived: {" ".join(survivors)}' if survivors else ''))
    return 0 if rows and not survivors else 1


if __name__ == '__main__':
    sys.exit(main())
