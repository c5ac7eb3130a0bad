"""Files that cannot hurt, the Python side of bench/output_path.h and bench/text_input.h (no
matplotlib here: jobs/csvrows.py and the model scripts import it too). Every Python script of the
suite reads and writes files through it.

Outputs: a path is written only when it does not exist or is a regular file (a symbolic link counts
as what it resolves to); a directory, device node, FIFO, socket or dangling link is refused. The
rule for an output that exists: a whole file (a figure, a report, a table) is refused unless the
command was given --force (set_replace(True)); results CSVs are appended to, by the C writer. A file
is written to a temporary file beside its target and renamed onto it when complete; on any error
(a full disk, a file-size limit: Python ignores SIGXFSZ, so the write fails with EFBIG) the temporary
is removed and the target is as before.

Inputs: only a regular file is opened (open_input): a FIFO, a device or a directory is refused before
anything is read, as they would block or never end. A results CSV is read as bytes in bounded pieces
and refused at the first NUL byte, control byte (binary data) or line longer than MAX_LINE, so that
a binary file ends the reader at once with "FILE:LINE: reason" instead of filling memory.

Messages name the file as shown() gives it (control characters escaped, a long path cut in the
middle), so that they stay one line and keep their reason; run_main() turns UnsafeFile and OSError
into that one line and exit status 2 instead of a traceback."""
import os
import re
import signal
import stat
import sys
import tempfile

MAX_LINE = 1 << 20  # a results row is a few KiB; a megabyte without a newline is not a CSV
_CHUNK = 1 << 16
_BINARY = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class UnsafeFile(Exception):
    """An input or output path that must not be used; the message is one line naming the file."""


_replace = False


def set_replace(on):
    """--force: whole files that exist are replaced (else refused)."""
    global _replace
    _replace = bool(on)


def shown(text):
    """text (a path, a value) as a message shows it: control characters as \\xNN, anything over 160
    characters cut in the middle with its length, as bench/options.h's opt_shown."""
    text = str(text)
    esc = "".join(c if " " <= c != "\x7f" else f"\\x{ord(c):02x}" for c in text)
    if len(text) > 160:
        return f"{esc[:110]}...{esc[-40:]} ({len(text.encode(errors='replace'))} bytes)"
    return esc


def _ended_by(signum, frame):
    raise SystemExit(128 + signum)  # unwinds through write_output: its temporary is removed


def run_main(prog, main, argv):
    """main(argv)'s exit status; a file it cannot use (UnsafeFile, OSError) ends it with one line
    "PROG: FILE: reason" and status 2, an interrupt with 130 (SIGTERM, SIGHUP: 128 + the signal),
    never with a traceback or a temporary file left behind."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) == signal.SIG_DFL:
            signal.signal(sig, _ended_by)
    try:
        return main(argv)
    except UnsafeFile as e:
        print(f"{prog}: {e}", file=sys.stderr)
    except OSError as e:
        where = f"{shown(e.filename)}: " if e.filename else ""
        print(f"{prog}: {where}{e.strerror or e}", file=sys.stderr)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 128 + signal.SIGINT
    return 2


def _kind(mode):
    for test, name in ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "another kind of file"


def check_output_file(path):
    """Raises UnsafeFile unless path is absent, or (resolves to) a regular file and --force was
    given (set_replace)."""
    try:
        lst = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as e:
        raise UnsafeFile(f"{shown(path)}: cannot check: {e.strerror}")
    st = lst
    if stat.S_ISLNK(lst.st_mode):
        try:
            st = os.stat(path)
        except OSError as e:
            raise UnsafeFile(f"{shown(path)}: a symbolic link that does not resolve to a file ({e.strerror})")
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeFile(f"{shown(path)}: not a regular file ({_kind(st.st_mode)})")
    if not _replace:
        raise UnsafeFile(f"{shown(path)}: exists; give --force to replace it")


def check_output_dir(path):
    """Raises UnsafeFile unless path is absent (it will be created) or (resolves to) a directory."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise UnsafeFile(f"{shown(path)}: a symbolic link that does not resolve to a directory")
        return
    except OSError as e:
        raise UnsafeFile(f"{shown(path)}: cannot check: {e.strerror}")
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeFile(f"{shown(path)}: not a directory ({_kind(st.st_mode)})")


def write_output(path, write):
    """Calls write(tmp) to fill a temporary file beside path's target, then renames it onto the
    target. Raises UnsafeFile for a path that is not a regular file (checked before and after)."""
    check_output_file(path)
    target = os.path.realpath(path) if os.path.islink(path) else path
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target) or ".", prefix=os.path.basename(target) + ".tmp.")
    try:
        os.close(fd)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # as a new file would be, not mkstemp's 0600
        write(tmp)
        try:
            st = os.lstat(target)  # replaced by something else while it was written?
            if not stat.S_ISREG(st.st_mode):
                raise UnsafeFile(f"{shown(path)}: not a regular file ({_kind(st.st_mode)})")
        except FileNotFoundError:
            pass
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def open_input(path):
    """path opened for reading in binary when it is (resolves to) a regular file; UnsafeFile
    "PATH: not a regular file (a FIFO)" otherwise, before anything is read (opened without blocking:
    a FIFO without a writer cannot hold it). OSError (absent, unreadable) passes through."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFile(f"{shown(path)}: not a regular file ({_kind(st.st_mode)})")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_text(path):
    """The bytes of a text file; UnsafeFile "PATH: reason" for what is not a regular file, and
    "PATH:LINE: reason" at a NUL byte, other binary data or a line over MAX_LINE bytes. OSError
    passes through."""
    out, line, run = [], 1, 0  # run: bytes since the last newline
    with open_input(path) as f:
        while True:
            chunk = f.read(_CHUNK)
            if not chunk:
                return b"".join(out)
            bad = _BINARY.search(chunk)
            if bad:
                at = line + chunk.count(b"\n", 0, bad.start())
                what = "NUL byte" if chunk[bad.start()] == 0 else f"binary data (byte 0x{chunk[bad.start()]:02x})"
                raise UnsafeFile(f"{shown(path)}:{at}: {what}: not a text file")
            pieces = chunk.split(b"\n")
            for i, p in enumerate(pieces):
                run = run + len(p) if i == 0 else len(p)
                if run > MAX_LINE:
                    raise UnsafeFile(f"{shown(path)}:{line + i}: line longer than {MAX_LINE} bytes")
            line += len(pieces) - 1
            out.append(chunk)
