"""Reading inputs and writing outputs: regular files only.

An input is opened once, without blocking (``O_NONBLOCK``: opening a FIFO
with no writer, or a device, never waits), and the *opened* file is checked
with ``fstat``: anything but a regular file (FIFO, device, directory,
socket; a symbolic link is followed, so a link to one of those too) is a
DC900 error, and the read is bounded by the size fstat reported, so
``/dev/zero`` or a growing file is never read without end.  The layout is
parsed from the bytes read, never from the path again.

An output (``relax -o OUT``) is written to a temporary file in OUT's
directory, fsync'ed, given the input's permission bits and renamed over OUT
(then the directory is fsync'ed): OUT is either untouched or complete.
Set-user-ID, set-group-ID and sticky bits are not copied: the new file
belongs to whoever runs the tool (root in CI), who must not end up owning
a set-user-ID copy of someone else's program (the kernel likewise clears
them when another user writes a file).
OUT must be absent or a regular file: a device (``-o /dev/null`` run as
root), FIFO, directory or socket is refused (DC907), and so is a symbolic
link, even to a regular file: writing through it would follow a link anyone
with write access to the directory could have planted (the classic /tmp
attack on a tool run as root), and renaming over it would silently detach
the link; give the file it points to.  ``relax --in-place`` replaces the
file that was read, in its own directory: an input path that is a symbolic
link to a regular file is written through to that file, after checking it
is still the file read.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile

from dyncall_rewrite.errors import InputIOError, OutputError


def file_kind(mode: int) -> str:
    """What a stat mode is, in words."""
    for test, name in (
        (stat.S_ISREG, "regular file"),
        (stat.S_ISDIR, "directory"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
        (stat.S_ISFIFO, "FIFO"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISLNK, "symbolic link"),
    ):
        if test(mode):
            return name
    return f"file of type 0o{stat.S_IFMT(mode):o}"


def read_input(path: str) -> tuple[bytes, os.stat_result]:
    """The contents of the regular file ``path`` and its fstat."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        raise InputIOError(f"cannot read: {e.strerror}", path=path) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputIOError(f"not a regular file ({file_kind(st.st_mode)})", path=path)
        chunks = []
        left = st.st_size
        while left > 0:
            b = os.read(fd, left)
            if not b:
                break
            chunks.append(b)
            left -= len(b)
        if left:
            raise InputIOError("the file shrank while it was read", path=path)
        return b"".join(chunks), st
    except OSError as e:
        raise InputIOError(f"cannot read: {e.strerror}", path=path) from None
    finally:
        os.close(fd)


def check_output(dest: str) -> None:
    """Refuse an output path that exists and is not a regular file."""
    try:
        st = os.lstat(dest)
    except FileNotFoundError:
        return
    except OSError as e:
        raise OutputError(f"cannot write: {e.strerror}", path=dest) from None
    if stat.S_ISLNK(st.st_mode):
        raise OutputError("refusing to write: a symbolic link (give the file it points to)", path=dest)
    if not stat.S_ISREG(st.st_mode):
        raise OutputError(f"refusing to write: a {file_kind(st.st_mode)}, not a regular file", path=dest)


def in_place_target(path: str, read: os.stat_result) -> str:
    """The file ``relax --in-place`` replaces: ``path`` with its symbolic
    links resolved, which must still be the file that was read."""
    target = os.path.realpath(path)
    try:
        st = os.lstat(target)
    except OSError as e:
        raise OutputError(f"cannot write {target}: {e.strerror}", path=path) from None
    if (st.st_dev, st.st_ino) != (read.st_dev, read.st_ino):
        raise OutputError(f"{target} is no longer the file that was read; not replaced", path=path)
    return target


def write_atomically(data: bytes | bytearray, dest: str, mode: int) -> None:
    """Write ``data`` to a temporary file next to ``dest`` and rename it
    over ``dest`` (absent or a regular file, see check_output), with
    permission bits ``mode & 0o777``; on any failure ``dest`` is
    untouched."""
    check_output(dest)
    d = os.path.dirname(os.path.abspath(dest))
    fd = -1
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".dyncall-rewrite.", dir=d)
        with os.fdopen(fd, "wb") as f:
            fd = -1
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), mode & 0o777)
            os.fsync(f.fileno())
        check_output(dest)  # again, as late as possible before the rename
        os.replace(tmp, dest)
        tmp = None
    except OSError as e:
        raise OutputError(f"cannot write: {e.strerror or e}", path=dest) from None
    finally:
        if fd >= 0:
            os.close(fd)
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    _fsync_dir(d)


def _fsync_dir(d: str) -> None:
    """Make the rename durable (best effort: not every file system can)."""
    try:
        fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
