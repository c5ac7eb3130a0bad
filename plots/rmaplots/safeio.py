"""Files that cannot hurt, the Python side of bench/output_path.h and bench/text_input.h (no
matplotlib here: jobs/csvrows.py imports it too).

Outputs: a path is written only when it does not exist or is a regular file (a symbolic link counts
as what it resolves to); a directory, device node, FIFO, socket or dangling link is refused. A file
is written to a temporary file beside its target and renamed onto it when complete; on any error the
temporary is removed and the target is as before.

Inputs: a results CSV is read as bytes in bounded pieces and refused at the first NUL byte, control
byte (binary data) or line longer than MAX_LINE, so that /dev/zero or /dev/urandom ends the reader at
once with "FILE:LINE: reason" instead of filling memory."""
import os
import re
import stat
import tempfile

MAX_LINE = 1 << 20  # a results row is a few KiB; a megabyte without a newline is not a CSV
_CHUNK = 1 << 16
_BINARY = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class UnsafeFile(Exception):
    """An input or output path that must not be used; the message is one line naming the file."""


def _kind(mode):
    for test, name in ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "another kind of file"


def check_output_file(path):
    """Raises UnsafeFile unless path is absent or (resolves to) a regular file."""
    try:
        lst = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as e:
        raise UnsafeFile(f"{path}: cannot check: {e.strerror}")
    st = lst
    if stat.S_ISLNK(lst.st_mode):
        try:
            st = os.stat(path)
        except OSError as e:
            raise UnsafeFile(f"{path}: a symbolic link that does not resolve to a file ({e.strerror})")
    if not stat.S_ISREG(st.st_mode):
        raise UnsafeFile(f"{path}: not a regular file ({_kind(st.st_mode)})")


def check_output_dir(path):
    """Raises UnsafeFile unless path is absent (it will be created) or (resolves to) a directory."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise UnsafeFile(f"{path}: a symbolic link that does not resolve to a directory")
        return
    except OSError as e:
        raise UnsafeFile(f"{path}: cannot check: {e.strerror}")
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafeFile(f"{path}: not a directory ({_kind(st.st_mode)})")


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
        check_output_file(target)  # replaced while it was written?
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def read_text(path):
    """The bytes of a text file; UnsafeFile "PATH:LINE: reason" at a NUL byte, other binary data or a
    line over MAX_LINE bytes. OSError passes through."""
    out, line, run = [], 1, 0  # run: bytes since the last newline
    with open(path, "rb") as f:
        while True:
            chunk = f.read(_CHUNK)
            if not chunk:
                return b"".join(out)
            bad = _BINARY.search(chunk)
            if bad:
                at = line + chunk.count(b"\n", 0, bad.start())
                what = "NUL byte" if chunk[bad.start()] == 0 else f"binary data (byte 0x{chunk[bad.start()]:02x})"
                raise UnsafeFile(f"{path}:{at}: {what}: not a text file")
            pieces = chunk.split(b"\n")
            for i, p in enumerate(pieces):
                run = run + len(p) if i == 0 else len(p)
                if run > MAX_LINE:
                    raise UnsafeFile(f"{path}:{line + i}: line longer than {MAX_LINE} bytes")
            line += len(pieces) - 1
            out.append(chunk)
