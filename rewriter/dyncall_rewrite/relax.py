"""``relax``: same-size rewrites of a checked image.

1. Fill ``site`` of entries the compiler could not label (Clang) when
   exactly one verified call/jmp of the entry's kind reaches the trampoline.
   ``func`` stays 0: that marks the site as found by the rewriter (not
   aligned by the compiler), which check and the runtime rely on.
2. Canonicalize the NOP padding before compiler-labelled sites to the arch's
   minimal NOP sequence of the same length.
3. Pre-resolve link-time-known targets: for const keys (and, with
   ``resolve_initializers``, non-const, non-escaping keys of FRESH sites)
   whose value is known from the file, point the trampoline's patchable
   branch -- and the site itself when known -- straight at the target, and
   set DYNCALL_SITE_RESOLVED in the entry.

Every write is checked against the bytes it replaces; the result is
re-checked before it is returned.
"""

from __future__ import annotations

import bisect
import contextlib
import itertools
import os
import struct
import tempfile
from dataclasses import dataclass, field

from dyncall_rewrite import abi
from dyncall_rewrite.check import Analysis, SiteInfo, check
from dyncall_rewrite.elf import Image
from dyncall_rewrite.errors import CheckFailedError, InternalError, OutputError

_I32 = struct.Struct("<i")
_U16 = struct.Struct("<H")


@dataclass(slots=True)
class Patch:
    addr: int
    old: bytes
    new: bytes
    what: str  # "site-field", "padding", "trampoline", "site", "flags"


@dataclass
class RelaxResult:
    data: bytearray
    patches: list[Patch] = field(default_factory=list)
    filled: int = 0
    padding: int = 0
    resolved: int = 0
    analysis: Analysis | None = None

    @property
    def changed(self) -> bool:
        return bool(self.patches)


@dataclass(slots=True)
class RelaxOptions:
    fill_sites: bool = True
    canonicalize_padding: bool = True
    resolve: bool = True
    resolve_initializers: bool = False


def relax(img: Image, opts: RelaxOptions | None = None, analysis: Analysis | None = None) -> RelaxResult:
    opts = opts or RelaxOptions()
    an = analysis or check(img)
    if an.errors:
        first = an.errors[0]
        an.symbolize(with_lines=False)
        raise CheckFailedError(
            f"input does not pass check ({len(an.errors)} problem(s); first:"
            f" {first.format(img.path).split(': ', 1)[1]})",
            path=img.path,
        )
    res = RelaxResult(bytearray(img.data))
    be = an.backend
    # [func, site) of every labelled site: a padding rewrite is only safe
    # for decodes that start at its own function (see _decoded_elsewhere).
    spans = sorted(
        (i.entry.func, i.entry.site) for i in an.sites if i.valid and i.entry.site and i.entry.func
    )
    reach = list(itertools.accumulate((sp[1] for sp in spans), max))
    for info in an.sites:
        if not info.valid or info.tramp is None:
            continue
        e = info.entry
        if opts.fill_sites and not e.site and be.patches_sites:
            _fill_site(img, res, info)
        if opts.canonicalize_padding and e.site and e.func and info.stream is not None:
            pad = be.nop_padding(info.stream, e.site)
            if pad is not None:
                start, length = pad
                new = be.canonical_nops(length)
                old = img.read(start, length)
                inside = any(start < t < start + length for t in be.branch_targets(info.stream))
                if (
                    old is not None
                    and old != new
                    and not inside
                    and not _decoded_elsewhere(spans, reach, start, length, e.func)
                ):
                    _write(img, res, start, old, new, "padding")
                    res.padding += 1
        if opts.resolve and not e.flags & abi.DYNCALL_SITE_RESOLVED and _resolvable(info, opts):
            _resolve(img, an, res, info)
    if res.patches:
        out = img.with_data(res.data)
        an2 = check(out, type(be)(out), reuse=an)
        if an2.errors:
            an2.symbolize(with_lines=False)
            raise InternalError(
                "relaxed image fails check (not written): "
                + an2.errors[0].format(img.path).split(": ", 1)[1],
                path=img.path,
            )
        res.analysis = an2
    else:
        res.analysis = an
    return res


def _decoded_elsewhere(spans: list[tuple[int, int]], reach: list[int], addr: int, n: int, func: int) -> bool:
    """Does the decode range [f, site) of another labelled site, from a
    function start ``f != func``, overlap the NOP run [addr, addr+n)?  That
    site's boundary check decodes across the run from another start (e.g. a
    corrupted ``func``, possibly inside the run), where the run's NOPs need
    not be instruction-aligned: rewriting them could move its boundary.
    ``reach[k]`` is the largest site of spans[:k+1] (stops the scan)."""
    k = bisect.bisect_left(spans, (addr + n,)) - 1
    while k >= 0 and reach[k] > addr:
        f, site = spans[k]
        if f != func and addr < site:
            return True
        k -= 1
    return False


def _write(img: Image, res: RelaxResult, addr: int, old: bytes, new: bytes, what: str) -> None:
    n = len(new)
    off = img.offset(addr, n)
    if off is None or len(old) != n or res.data[off : off + n] != old:
        raise InternalError(f"bytes at 0x{addr:x} changed under relax", path=img.path)
    res.data[off : off + n] = new
    res.patches.append(Patch(addr, old, new, what))


def _fill_site(img: Image, res: RelaxResult, info: SiteInfo) -> None:
    e = info.entry
    want = "call" if e.kind == abi.DYNCALL_KIND_CALL else "jmp"
    if len(info.callers) != 1 or e.func:
        # func != 0 would make the filled site look compiler-labelled
        # (aligned by the compiler); leave such an entry to the runtime.
        return
    b = info.callers[0]
    if b.op != want or not b.patchable:
        return
    field_addr = e.addr + abi.SITE_OFF_SITE
    rel = b.addr - field_addr
    if not -(2**31) <= rel < 2**31:
        return
    _write(img, res, field_addr, _I32.pack(0), _I32.pack(rel), "site-field")
    e.site = b.addr
    res.filled += 1


def _resolvable(info: SiteInfo, opts: RelaxOptions) -> bool:
    e = info.entry
    if info.target is None or info.key is None:
        return False
    if e.flags & abi.DYNCALL_SITE_TYPE_KEY or info.key_flags & abi.DYNCALL_KEY_TYPE:
        return False
    if info.key_flags & abi.DYNCALL_KEY_CONST:
        return True
    return (
        opts.resolve_initializers
        and not info.key_flags & abi.DYNCALL_KEY_ESCAPES
        and bool(e.flags & abi.DYNCALL_SITE_FRESH)
    )


def _resolve(img: Image, an: Analysis, res: RelaxResult, info: SiteInfo) -> None:
    be = an.backend
    e = info.entry
    target = info.target
    assert target is not None and info.tramp is not None
    if not img.is_exec(target):
        return
    tramp_new = be.encode_branch("jmp", e.tramp, target)
    if tramp_new is None:
        return
    site_new = None
    if e.site and be.patches_sites:
        op = be.site_op(e.kind)
        site_new = be.encode_branch(op, e.site, target)
        if site_new is None:
            return
    n = len(tramp_new)
    old = img.read(e.tramp, n)
    assert old is not None
    # Data first (flag), then code: the file is written at once anyway.
    fl = e.addr + abi.SITE_OFF_FLAGS
    _write(img, res, fl, _U16.pack(e.flags), _U16.pack(e.flags | abi.DYNCALL_SITE_RESOLVED), "flags")
    _write(
        img,
        res,
        e.tramp,
        bytes(res.data[img.offset(e.tramp, n) : img.offset(e.tramp, n) + n]),
        tramp_new,
        "trampoline",
    )
    if site_new is not None:
        off = img.offset(e.site, n)
        assert off is not None
        cur = bytes(res.data[off : off + n])
        if cur != site_new:
            _write(img, res, e.site, cur, site_new, "site")
    res.resolved += 1


def write_atomically(data: bytes | bytearray, dest: str, mode: int) -> None:
    """Write ``data`` to a temporary file next to ``dest`` and rename it
    over ``dest``; on any failure ``dest`` is untouched."""
    d = os.path.dirname(os.path.abspath(dest))
    fd = -1
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=".dyncall-rewrite.", dir=d)
        with os.fdopen(fd, "wb") as f:
            fd = -1
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, dest)
        tmp = None
    except OSError as e:
        raise OutputError(f"cannot write {dest}: {e.strerror or e}", path=dest) from None
    finally:
        if fd >= 0:
            os.close(fd)
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
