"""Inputs must be regular files (never a hang on a FIFO, never an unbounded
read of a device); ``-o`` replaces only a regular file or creates one,
atomically, with the input's permission bits (files.py).

The commands that could hang or read without end if the rule broke run as
subprocesses with a timeout (a failure, not a measurement).  Device nodes
are made with os.mknod in a temporary directory (root only: the suite runs
as root in CI), never the real /dev/null."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys

import pytest

from dyncall_rewrite.check import check
from dyncall_rewrite.cli import main
from dyncall_rewrite.elf import Image
from dyncall_rewrite.errors import OutputError
from dyncall_rewrite.files import in_place_target

REWRITER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="os.mknod of a device node needs root (CAP_MKNOD)")


def tool(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dyncall_rewrite", *argv],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=REWRITER),
        timeout=120,  # a hang is the failure this guards against
        check=False,
    )


def one_error(r: subprocess.CompletedProcess[str], code: str, text: str) -> None:
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stderr.startswith("dyncall-rewrite: error: ") and r.stderr.count("\n") == 1, r.stderr
    assert code in r.stderr and text in r.stderr, r.stderr
    assert "DC908" not in r.stderr


def _rd(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _leftovers(d: str) -> list[str]:
    return [n for n in os.listdir(d) if n.startswith(".dyncall-rewrite.")]


@pytest.mark.parametrize("argv", [["check"], ["list"], ["list", "--json"], ["relax", "--in-place"]])
def test_fifo_input_is_an_error_not_a_hang(tmp_path, argv) -> None:
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    link = str(tmp_path / "link")
    os.symlink("fifo", link)
    for p in (fifo, link):
        one_error(tool(*argv, p), "DC900", "not a regular file (FIFO)")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_relax_fifo_to_output(tmp_path) -> None:
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    one_error(tool("relax", fifo, "-o", str(tmp_path / "out")), "DC900", "FIFO")
    assert not os.path.exists(tmp_path / "out")


def test_dev_zero_input_is_a_one_line_error() -> None:
    # A character device: refused from fstat, never read (was: read until
    # memory ran out, then DC908).
    for argv in (
        ["check", "/dev/zero"],
        ["list", "--json", "/dev/zero"],
        ["relax", "/dev/zero", "--in-place"],
    ):
        one_error(tool(*argv), "DC900", "not a regular file (character device)")


def test_directory_and_link_to_directory(tmp_path) -> None:
    os.symlink(".", tmp_path / "here")
    for p in (str(tmp_path), str(tmp_path / "here")):
        one_error(tool("check", p), "DC900", "not a regular file (directory)")


@needs_root
def test_output_char_device_is_left_alone(binaries, tmp_path) -> None:
    """``-o /dev/null`` run as root used to rename a regular file over the
    device node; on a copy of /dev/null's node (1, 3)."""
    dev = str(tmp_path / "null")
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    src = binaries("clang-pie")
    before = _rd(src)
    one_error(tool("relax", src, "-o", dev), "DC907", "a character device, not a regular file")
    st = os.lstat(dev)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)
    assert _rd(src) == before and not _leftovers(str(tmp_path))


@needs_root
def test_device_input_never_read(tmp_path) -> None:
    dev = str(tmp_path / "zero")
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero's numbers
    one_error(tool("check", dev), "DC900", "character device")


def test_output_fifo_directory_socket(binaries, tmp_path, capsys) -> None:
    import socket

    src = binaries("gcc-pie")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    d = tmp_path / "dir"
    d.mkdir()
    sock = tmp_path / "sock"
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(sock))
    try:
        for out, kind in ((fifo, "FIFO"), (d, "directory"), (sock, "socket")):
            assert main(["relax", src, "-o", str(out)]) == 1
            err = capsys.readouterr().err
            assert "DC907" in err and f"a {kind}, not a regular file" in err, err
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and os.listdir(d) == []
        assert stat.S_ISSOCK(os.lstat(sock).st_mode)
    finally:
        s.close()
    assert not _leftovers(str(tmp_path))


def test_output_symlink_is_refused(binaries, tmp_path, capsys) -> None:
    """Even to a regular file: writing through would follow a link anyone
    who can write the directory may have planted; renaming over it would
    detach it (files.py, docs/rewriter.md)."""
    src = binaries("gcc-pie")
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    link = tmp_path / "out"
    os.symlink("victim", link)
    dangling = tmp_path / "dangling"
    os.symlink("nowhere", dangling)
    for out in (link, dangling):
        assert main(["relax", src, "-o", str(out)]) == 1
        err = capsys.readouterr().err
        assert "DC907" in err and "symbolic link" in err and err.count("\n") == 1, err
        assert os.path.islink(out)
    assert victim.read_bytes() == b"precious" and not os.path.exists(tmp_path / "nowhere")


def test_output_created_or_replaced_atomically_with_mode(binaries, tmp_path, capsys) -> None:
    src = str(tmp_path / "in")
    shutil.copy(binaries("clang-pie"), src)
    os.chmod(src, 0o750 | stat.S_ISUID | stat.S_ISGID)
    new = tmp_path / "new"
    assert main(["relax", src, "-o", str(new)]) == 0
    # permission bits kept; set-user/group-ID dropped (the output is owned
    # by whoever ran the tool)
    assert stat.S_IMODE(os.stat(new).st_mode) == 0o750
    assert not check(Image.load(str(new))).errors
    old = tmp_path / "old"
    old.write_bytes(b"old contents")
    os.chmod(old, 0o600)
    capsys.readouterr()
    assert main(["relax", "-q", src, "-o", str(old)]) == 0
    assert capsys.readouterr().out == ""  # -q: nothing on success (dyncall-cc)
    assert old.read_bytes() == new.read_bytes() and stat.S_IMODE(os.stat(old).st_mode) == 0o750
    assert not _leftovers(str(tmp_path))


def test_in_place_through_a_symlink_writes_the_file(binaries, tmp_path, capsys) -> None:
    real = tmp_path / "real"
    shutil.copy(binaries("clang-pie"), real)
    os.chmod(real, 0o755)
    sub = tmp_path / "sub"
    sub.mkdir()
    link = sub / "link"
    os.symlink(real, link)
    before = real.read_bytes()
    assert main(["relax", "--in-place", str(link)]) == 0
    assert os.path.islink(link) and os.readlink(link) == str(real)
    assert real.read_bytes() != before and stat.S_IMODE(os.stat(real).st_mode) == 0o755
    assert not _leftovers(str(tmp_path)) and not _leftovers(str(sub))
    capsys.readouterr()


def test_in_place_target_must_be_the_file_read(binaries, tmp_path) -> None:
    p = tmp_path / "a"
    shutil.copy(binaries("clang-pie"), p)
    st = os.stat(p)
    assert in_place_target(str(p), st) == str(p)
    with open(p, "rb"):  # held open: its inode cannot be reused
        os.unlink(p)
        shutil.copy(binaries("clang-pie"), p)  # another file at the same path
        with pytest.raises(OutputError, match="no longer the file that was read"):
            in_place_target(str(p), st)
