"""The rules of ``__dyncall_sites`` (DC001-DC005 of site entries, DC010-
DC017, DC020-DC027, DC030-DC032, DC040/DC042/DC044 of a site's key,
DC050-DC053), on the engine of rules.py: each rule once, with its
per-entry form (a function of a SiteContext and a SiteInfo, or of all
entries for the ``callers`` and ``overlap`` stages) and its vectorised
form (a function of the columns.py facts ``c``: True where it holds).

Stages, in order: ``site-fields`` (the entry's own fields), ``trampoline``,
``site-key``, ``branch`` (the trampoline's patchable branch and the key's
link-time value), ``site`` (the call instruction a labelled entry names),
``callers`` (instruction boundaries and the branches discovery found) and
``overlap`` (duplicates and overlaps of everything the entries own).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

import numpy as np

from dyncall_rewrite import abi
from dyncall_rewrite.arch import Backend, Branch, Trampoline
from dyncall_rewrite.diagnostics import CODES, ERROR, Diagnostic
from dyncall_rewrite.elf import Image
from dyncall_rewrite.model import SiteInfo, in_function, key_context
from dyncall_rewrite.rules import RuleSet
from dyncall_rewrite.tables import Key
from dyncall_rewrite.vec import has_duplicates

RULES = RuleSet()
SITES = abi.DYNCALL_SITES_SECTION
RES, RETP = abi.DYNCALL_SITE_RESOLVED, abi.DYNCALL_SITE_RETPOLINE


@dataclass
class SiteContext:
    """What the per-entry forms share: the image, its backend, the key
    lookup, and the ABI bytes of every trampoline and site read in bulk
    beforehand (``fast_*``: None where not exactly the ABI bytes; the
    rules then read them one by one and say what is wrong)."""

    image: Image
    backend: Backend
    diagnostics: list[Diagnostic]
    lookup_key: Callable[[int], Key | None]
    flags_by_addr: dict[int, int]
    thunk: int | None
    fast_tramps: list[Trampoline | None]
    fast_sites: list[Branch | None]
    keyctx: dict[int, tuple[int, int | None]] = field(default_factory=dict)
    # What each entry owns (overlap stage): (start, end, owner, what).
    intervals: list[tuple[int, int, SiteInfo, str]] = field(default_factory=list)

    def learn_key(self, info: SiteInfo) -> None:
        """The key's flags merged over the module and its link-time value
        (once per key cell)."""
        e = info.entry
        kc = self.keyctx.get(e.keycell)
        if kc is None:
            assert info.key is not None
            kc = self.keyctx[e.keycell] = key_context(self.image, info.key, self.flags_by_addr)
        info.key_flags, info.target = kc

    def err(self, code: str, addr: int | None, msg: str, info: SiteInfo) -> None:
        self.diagnostics.append(Diagnostic(code, addr, msg, info.entry.index, SITES))
        if CODES[code][0] == ERROR:
            info.valid = False


def _where(info: SiteInfo) -> str:
    return f"site entry #{info.entry.index}"


def _exec(c: Any, addrs: np.ndarray, n: int) -> np.ndarray:
    return c.image.file_offsets(addrs, n, exec_only=True) >= 0


# -- site-fields --------------------------------------------------------------


@RULES.rule("DC001", stage="site-fields", columns=lambda c: c.version == abi.DYNCALL_ABI_VERSION)
def version(ctx: SiteContext, info: SiteInfo) -> None:
    e = info.entry
    if e.version != abi.DYNCALL_ABI_VERSION:
        ctx.err(
            "DC001",
            e.addr,
            f"{_where(info)} has version {e.version}, expected {abi.DYNCALL_ABI_VERSION}",
            info,
        )


@RULES.rule(
    "DC003",
    stage="site-fields",
    # (conditional entries are judged one by one: rare, and arch-dependent)
    columns=lambda c: (c.kind == abi.DYNCALL_KIND_CALL) | (c.kind == abi.DYNCALL_KIND_TAIL),
)
def kind(ctx: SiteContext, info: SiteInfo) -> None:
    e = info.entry
    if e.kind == abi.DYNCALL_KIND_COND and ctx.backend.has_cond:
        return
    if e.kind == abi.DYNCALL_KIND_INLINE and ctx.backend.has_inline:
        return
    if e.kind not in (abi.DYNCALL_KIND_CALL, abi.DYNCALL_KIND_TAIL):
        kn = abi.KIND_NAMES.get(e.kind)
        why = f"reserved kind {e.kind} ({kn})" if kn else f"unknown kind {e.kind}"
        if e.kind == abi.DYNCALL_KIND_COND:
            why = f"kind {e.kind} (cond), which {ctx.backend.name} has no conditional sites for"
        if e.kind == abi.DYNCALL_KIND_INLINE:
            why = f"kind {e.kind} (inline), which {ctx.backend.name} has no inline guards for"
        ctx.err("DC003", e.addr, f"{_where(info)} has {why}; expected 1 (call) or 2 (tail)", info)


@RULES.rule("DC004", stage="site-fields", columns=lambda c: c.flags & ~abi.SITE_FLAGS_ALL == 0)
def flags(ctx: SiteContext, info: SiteInfo) -> None:
    e = info.entry
    if e.flags & ~abi.SITE_FLAGS_ALL:
        ctx.err(
            "DC004", e.addr, f"{_where(info)} has unknown flags 0x{e.flags & ~abi.SITE_FLAGS_ALL:x}", info
        )


def _fields_mapped(c: Any) -> np.ndarray:
    m = c.image.mapped_mask
    ok = m(c.tramp, 1) & m(c.keycell, 8)
    return ok & ((c.site == 0) | m(c.site, 1)) & ((c.func == 0) | m(c.func, 1))


@RULES.rule("DC005", stage="site-fields", columns=_fields_mapped)
def fields_mapped(ctx: SiteContext, info: SiteInfo) -> bool:
    """Every self-relative field inside the image; the entry is examined
    further only when its fields are sound (no error so far)."""
    e, mapped = info.entry, ctx.image.mapped
    if (
        mapped(e.tramp, 1) is not None
        and mapped(e.keycell, 8) is not None
        and (not e.site or mapped(e.site, 1) is not None)
        and (not e.func or mapped(e.func, 1) is not None)
    ):
        return info.valid
    for fname, v, n in (
        ("tramp", e.tramp, 1),
        ("keycell", e.keycell, 8),
        ("site", e.site, 1),
        ("func", e.func, 1),
    ):
        if (v or fname in ("tramp", "keycell")) and ctx.image.mapped(v, n) is None:
            ctx.err("DC005", e.addr, f"{_where(info)}: {fname} 0x{v:x} is outside the image", info)
    return info.valid


@RULES.rule("DC033", stage="site-fields", columns=lambda c: c.kind != abi.DYNCALL_KIND_INLINE)
def inline_guard(ctx: SiteContext, info: SiteInfo) -> bool:
    """An inline guard entry (docs/abi.md, "Inline guards") follows the
    CALL or TAIL entry it guards, is never RESOLVED, and its literal is an
    8-byte aligned slot of writable data outside RELRO that the loader
    fills with its own address (the sentinel); its trampoline, sites and
    callers are checked like any site's."""
    e = info.entry
    if e.kind != abi.DYNCALL_KIND_INLINE:
        return True
    where = f"inline guard entry #{e.index}"
    if info.op_kind not in (abi.DYNCALL_KIND_CALL, abi.DYNCALL_KIND_TAIL):
        ctx.err("DC033", e.addr, f"{where} does not follow a call or tail site entry", info)
        return False
    if e.flags & RES:
        ctx.err("DC033", e.addr, f"{where} is flagged RESOLVED", info)
        return False
    img, lit = ctx.image, e.keycell
    pv = img.pointer(lit)
    if lit % 8 or not img.is_writable(lit, 8) or img.in_relro(lit, 8):
        msg = f"literal 0x{lit:x} of {where} is not an aligned 8-byte slot of writable data outside RELRO"
        ctx.err("DC033", lit, msg, info)
        return False
    if not pv.known or pv.value != lit:
        have = f"0x{pv.value:x}" if pv.known else (pv.symbol or "unknown")
        msg = f"literal 0x{lit:x} of {where} holds {have}, not its own address (the sentinel)"
        ctx.err("DC033", lit, msg, info)
        return False
    info.lit = lit
    return True


# -- trampoline ---------------------------------------------------------------


@RULES.rule("DC010", stage="trampoline", columns=lambda c: _exec(c, c.tramp, c.backend.site_size))
def tramp_exec(ctx: SiteContext, info: SiteInfo) -> bool:
    e = info.entry
    if not ctx.image.is_exec(e.tramp, ctx.backend.site_size):
        ctx.err("DC010", e.tramp, f"trampoline of {_where(info)} is not in an executable segment", info)
        return False
    t = ctx.fast_tramps[e.index]
    info.tramp = t if t is not None else ctx.backend.read_trampoline(e.tramp, ctx.thunk)
    return True


def _kind_name(kind: int) -> str:
    return abi.KIND_NAMES.get(kind, str(kind))


@RULES.rule(
    "DC011",
    "DC012",
    "DC013",
    "DC014",
    "DC017",
    "DC053",
    stage="trampoline",
    columns=lambda c: c.tc.ok & (c.kind != abi.DYNCALL_KIND_COND),
)
def tramp_bytes(ctx: SiteContext, info: SiteInfo) -> None:
    """The trampoline is exactly the ABI's bytes (the backend says which
    part is not: alignment DC011, padding DC012, slow path DC013, branch
    DC014; ppc64le: the branch the suffix of a prefixed instruction DC017,
    onto a global entry DC053); a conditional entry's trampoline, and only
    its, returns on a null chain (DC013)."""
    assert info.tramp is not None
    for code, msg in info.tramp.problems:
        ctx.err(code, info.entry.tramp, msg, info)
    if (info.entry.kind == abi.DYNCALL_KIND_COND) != info.tramp.cond:
        which = "has no null test" if info.tramp.cond is False else "has the null test of a conditional site"
        ctx.err(
            "DC013",
            info.entry.tramp + ctx.backend.site_size,
            f"the slow path of a {_kind_name(info.entry.kind)} entry's trampoline {which}",
            info,
        )


@RULES.rule("DC016", stage="trampoline", columns=lambda c: (c.flags & RETP == 0) | (c.tc.retpoline != 0))
def retpoline_slow_path(ctx: SiteContext, info: SiteInfo) -> None:
    e = info.entry
    assert info.tramp is not None
    if e.flags & RETP and info.tramp.slow == "plain":
        msg = "the site is flagged RETPOLINE but its trampoline's slow path is a plain indirect jmp *%r10"
        ctx.err("DC016", e.tramp + ctx.backend.site_size, msg, info)


# -- site-key -----------------------------------------------------------------


@RULES.rule("DC042", stage="site-key", columns=lambda c: c.key_found)
def key_described(ctx: SiteContext, info: SiteInfo) -> bool:
    e = info.entry
    key = info.key = ctx.lookup_key(e.keycell)
    if key is None:
        pv = ctx.image.pointer(e.keycell)
        what = f"key 0x{pv.value:x}" if pv.known else f"key {pv.symbol}" if pv.symbol else "key"
        msg = f"{what} of {_where(info)} (key cell 0x{e.keycell:x}) has no __dyncall_keys entry"
        ctx.err("DC042", e.addr, msg, info)
        return False
    return True


@RULES.rule("DC040", stage="site-key", columns=lambda c: c.cell_ok)
def key_cell_relocatable(ctx: SiteContext, info: SiteInfo) -> bool:
    e = info.entry
    assert info.key is not None
    if info.key.cell != e.keycell and not ctx.image.holds_key_cell(e.keycell):
        msg = (
            f"key cell of {_where(info)} is not an aligned pointer the loader can relocate"
            " (PIE/DSO: writable RELRO data; fixed-address executable: any data)"
        )
        ctx.err("DC040", e.keycell, msg, info)
        return False
    return True


def _type_flags_agree(c: Any) -> np.ndarray:
    return (c.flags & abi.DYNCALL_SITE_TYPE_KEY != 0) == (c.key_flags & abi.DYNCALL_KEY_TYPE != 0)


@RULES.rule("DC044", stage="site-key", columns=_type_flags_agree)
def key_type_agrees(ctx: SiteContext, info: SiteInfo) -> None:
    e, key = info.entry, info.key
    assert key is not None
    st = bool(e.flags & abi.DYNCALL_SITE_TYPE_KEY)
    kt = bool(key.flags & abi.DYNCALL_KEY_TYPE)
    if st != kt:
        ctx.err(
            "DC044",
            e.addr,
            f"{_where(info)} says TYPE_KEY={int(st)} but key {key.label!r} says TYPE={int(kt)}",
            info,
        )


# -- branch -------------------------------------------------------------------


@RULES.rule("DC015", stage="branch", columns=lambda c: (c.flags & RES != 0) | (c.tc.branch == c.tc.unpatched))
def branch_unpatched(ctx: SiteContext, info: SiteInfo) -> None:
    e, t = info.entry, info.tramp
    assert t is not None
    if t.branch_target is not None and not e.flags & RES and t.branch_target != t.unpatched_target:
        msg = (
            f"trampoline branch goes to 0x{t.branch_target:x}, not to its"
            " slow path, but the entry is not flagged RESOLVED"
        )
        ctx.err("DC015", e.tramp, msg, info)


def _resolved_ok(c: Any) -> np.ndarray:
    known = c.target != 0
    return (c.flags & RES == 0) | (known & (c.tc.branch == c.target) & c.target_exec)


@RULES.rule("DC051", "DC050", "DC052", stage="branch", columns=_resolved_ok)
def branch_resolved(ctx: SiteContext, info: SiteInfo) -> None:
    """A RESOLVED trampoline branches to the key's link-time value: one it
    can reach (DC050), that value (DC051), in executable code (DC052)."""
    e, t = info.entry, info.tramp
    assert t is not None
    if t.branch_target is None or not e.flags & RES:
        return
    problem = None
    if info.target is not None and t.branch_target != info.target:
        problem = ctx.backend.resolve_problem(e.tramp, info.target)
    if problem is not None:
        msg = (
            f"entry is RESOLVED but its link-time target 0x{info.target:x} cannot be"
            f" reached directly: {problem}"
        )
        ctx.err("DC050", e.tramp, msg, info)
    elif info.target is None or t.branch_target != info.target:
        want = f"0x{info.target:x}" if info.target is not None else "unknown at link time"
        msg = f"RESOLVED trampoline branch goes to 0x{t.branch_target:x}; the key's link-time value is {want}"
        ctx.err("DC051", e.tramp, msg, info)
    elif not ctx.image.is_exec(t.branch_target):
        ctx.err(
            "DC052", e.tramp, f"RESOLVED target 0x{t.branch_target:x} is not in an executable segment", info
        )


def _far_ok(c: Any) -> np.ndarray:
    """Unresolved: a const key's executable link-time target within the
    trampoline's branch range (in an image under 2 GiB every target is)."""
    segs = c.image.segments
    if not segs or segs[-1].end - segs[0].vaddr < 1 << 31:
        return np.ones(len(c.flags), bool)
    far = (c.target != 0) & (c.key_flags & abi.DYNCALL_KEY_CONST != 0) & c.target_exec
    far &= ~c.hooks.branch_in_range(c.tramp, c.target)
    return (c.flags & RES != 0) | ~far


@RULES.rule("DC050", stage="branch", columns=_far_ok)
def target_in_range(ctx: SiteContext, info: SiteInfo) -> None:
    e = info.entry
    be, img = ctx.backend, ctx.image
    if (
        info.target is not None
        and not e.flags & RES
        and be.far_target_is_error
        and info.key_flags & abi.DYNCALL_KEY_CONST
        and img.is_exec(info.target)
        and be.encode_branch("jmp", e.tramp, info.target) is None
    ):
        msg = f"link-time target 0x{info.target:x} of const key is out of rel32 range of the trampoline"
        ctx.err("DC050", e.tramp, msg, info)


# -- site ---------------------------------------------------------------------


@RULES.rule("DC020", stage="site", columns=lambda c: (c.site == 0) | _exec(c, c.site, c.backend.site_size))
def site_exec(ctx: SiteContext, info: SiteInfo) -> bool:
    e = info.entry
    if e.site and not ctx.image.is_exec(e.site, ctx.backend.site_size):
        ctx.err("DC020", e.site, f"site of {_where(info)} is not in an executable segment", info)
        return False
    return True


@RULES.rule("DC021", stage="site", columns=lambda c: (c.site == 0) | (c.op == c.want))
def site_instruction(ctx: SiteContext, info: SiteInfo) -> bool:
    e, be = info.entry, ctx.backend
    if not e.site:
        return True
    br = ctx.fast_sites[e.index] or be.decode_site(e.site)
    want = be.site_op(info.site_kind)
    if br is None or br.op != want:
        msg = (
            f"site is `{be.describe(e.site)}`, expected `{be.op_names[want]}`"
            f" for a {abi.KIND_NAMES[info.site_kind]} entry"
        )
        ctx.err("DC021", e.site, msg, info)
        return False
    info.callers = [br]
    return True


def _reaches(c: Any) -> np.ndarray:
    return (c.site == 0) | (c.starget == c.tramp) | ((c.flags & RES != 0) & (c.starget == c.tc.branch))


@RULES.rule("DC022", stage="site", columns=_reaches)
def site_reaches_trampoline(ctx: SiteContext, info: SiteInfo) -> None:
    e, t = info.entry, info.tramp
    if not e.site:
        return
    assert t is not None
    br = info.callers[0]
    if br.target != e.tramp and not (
        e.flags & RES and t.branch_target is not None and br.target == t.branch_target
    ):
        ctx.err("DC022", e.site, f"site {br.op}s 0x{br.target:x}, not its trampoline 0x{e.tramp:x}", info)


@RULES.rule(
    "DC023",
    "DC025",
    stage="site",
    columns=lambda c: (c.site == 0) | c.hooks.site_alignment_ok(c.site, c.labelled),
)
def site_alignment(ctx: SiteContext, info: SiteInfo) -> None:
    """The arch's conditions on a site: x86-64, a labelled site's rel32
    4-aligned (DC023); ppc64le, the TOC save and restore (DC025)."""
    e = info.entry
    if e.site:
        p = ctx.backend.site_alignment_problem(e.site, compiler_labelled=bool(e.func))
        if p:
            ctx.err(p[0], e.site, p[1], info)


@RULES.rule("DC024", stage="site", columns=lambda c: ~c.labelled | in_function(c.site, c.func))
def site_in_function(ctx: SiteContext, info: SiteInfo) -> None:
    e = info.entry
    if e.site and e.func and not in_function(e.site, e.func):
        ctx.err("DC024", e.site, f"site is not inside its function (func 0x{e.func:x})", info)


# -- callers (all entries at once) ---------------------------------------------


@dataclass
class Callers:
    """The entries whose callers are checked together: labelled sites
    (decoded from ``func``), sites the table names without ``func``, and
    the trampolines whose callers discovery finds."""

    labelled: list[SiteInfo] = field(default_factory=list)
    unlabelled_filled: list[SiteInfo] = field(default_factory=list)
    to_discover: dict[int, SiteInfo] = field(default_factory=dict)


@RULES.rule("DC024", stage="callers", columns=lambda c: c.boundaries_ok)
def boundaries(ctx: SiteContext, cs: Callers) -> None:
    """Sites at instruction boundaries: a labelled site's function decoded
    from its start, other sites in the enclosing code."""
    be = ctx.backend
    if cs.labelled:
        streams = be.decode_ranges([(i.entry.func, i.entry.site + be.site_size) for i in cs.labelled])
        for info, stream in zip(cs.labelled, streams, strict=True):
            info.stream = stream
            if not (stream.ends_with(info.entry.site) or stream.has_start(info.entry.site)):
                msg = (
                    "site is not at an instruction boundary when its"
                    f" function (0x{info.entry.func:x}) is decoded from the start"
                )
                ctx.err("DC024", info.entry.site, msg, info)
    if cs.unlabelled_filled:
        starts = be.instruction_boundaries([i.entry.site for i in cs.unlabelled_filled])
        for info in cs.unlabelled_filled:
            if info.entry.site not in starts:
                ctx.err(
                    "DC024",
                    info.entry.site,
                    "site is not at an instruction boundary of the enclosing code",
                    info,
                )


@RULES.rule("DC026", stage="callers", columns=lambda c: c.counts[c.discover] > 0)
def discovered(ctx: SiteContext, cs: Callers) -> None:
    """Discovery: the callers of every trampoline whose entry names no
    site (at least one, or the site is dead)."""
    if not cs.to_discover:
        return
    found = ctx.backend.find_branches_to(set(cs.to_discover))
    for tramp, info in cs.to_discover.items():
        info.callers = sorted(found.get(tramp, []), key=lambda b: b.addr)
        if not info.callers:
            msg = f"no call or jump reaches the trampoline of site entry #{info.entry.index} (dead site?)"
            ctx.err("DC026", tramp, msg, info)


def _callers_patchable(c: Any) -> np.ndarray:
    return (c.cop == c.want[c.c_ent]) & c.hooks.site_alignment_ok(c.ca, np.zeros(len(c.ca), bool))


@RULES.rule("DC027", "DC023", "DC025", stage="callers", columns=_callers_patchable)
def callers_patchable(ctx: SiteContext, cs: Callers) -> None:
    """Every discovered caller is the branch the runtime patches, and
    meets the arch's conditions on a site."""
    be = ctx.backend
    for tramp, info in cs.to_discover.items():
        want = be.site_op(info.site_kind)
        for b in info.callers:
            if not b.patchable or b.op != want:
                msg = (
                    f"`{be.describe(b.addr)}` reaches trampoline 0x{tramp:x}"
                    f" but a {abi.KIND_NAMES[info.site_kind]} entry expects `{be.op_names[want]}`:"
                    " the runtime patches the trampoline, not this branch, so calls through it"
                    " cost one extra direct jump (branch -> trampoline -> target) and it is never"
                    " a direct call"
                )
                ctx.err("DC027", b.addr, msg, info)
            elif p := be.site_alignment_problem(b.addr, compiler_labelled=False):
                ctx.err(p[0], b.addr, p[1], info)


# -- overlap (all entries at once) ---------------------------------------------


def _no_duplicates(c: Any) -> bool:
    return not has_duplicates(c.tramp) and not has_duplicates(c.c_addr)


@RULES.rule("DC031", "DC030", stage="overlap", columns=_no_duplicates)
def duplicates(ctx: SiteContext, sites: list[SiteInfo]) -> None:
    """One entry per trampoline (DC031) and per site (DC030); collects
    what each entry owns for the overlap rule, in entry order (trampoline
    first)."""
    seen_site: dict[int, int] = {}
    seen_tramp: dict[int, int] = {}
    pad, n = ctx.backend.tramp_pad, ctx.backend.site_size
    app = ctx.intervals.append
    for info in sites:
        e, t, ix = info.entry, info.tramp, info.entry.index
        if t is not None:
            k = seen_tramp.setdefault(e.tramp, ix)
            if k != ix:
                msg = f"site entries #{k} and #{ix} share one trampoline"
                ctx.diagnostics.append(Diagnostic("DC031", e.tramp, msg, ix, SITES))
                info.valid = False
            else:
                app((e.tramp - pad, e.tramp + (t.size if t.size > n else n), info, "trampoline"))
        for b in info.callers:
            k = seen_site.setdefault(b.addr, ix)
            if k != ix:
                ctx.diagnostics.append(
                    Diagnostic(
                        "DC030", b.addr, f"site entries #{k} and #{ix} describe the same site", ix, SITES
                    )
                )
                info.valid = False
            elif b.patchable:
                app((b.addr, b.addr + b.length, info, "site"))


def _disjoint(c: Any) -> bool:
    o = np.argsort(c.iv_start, kind="stable")
    s, e = c.iv_start[o], c.iv_end[o]
    return len(s) < 2 or not (s[1:] < np.maximum.accumulate(e)[:-1]).any()


@RULES.rule("DC032", stage="overlap", columns=_disjoint)
def overlaps(ctx: SiteContext, sites: list[SiteInfo]) -> None:
    """Trampolines (with their padding) and patchable sites are disjoint."""
    ivs = ctx.intervals
    ivs.sort(key=itemgetter(0))  # stable: ties keep entry order
    prev_end = -1
    prev: tuple[int, int, SiteInfo, str] | None = None
    for iv in ivs:
        start, end, o, w = iv
        if start < prev_end and prev is not None and o is not prev[2]:
            p = prev[2]
            msg = f"{w} of site entry #{o.entry.index} overlaps {prev[3]} of site entry #{p.entry.index}"
            ctx.diagnostics.append(Diagnostic("DC032", start, msg, o.entry.index, SITES))
            o.valid = False
        if end > prev_end:
            prev_end, prev = end, iv
