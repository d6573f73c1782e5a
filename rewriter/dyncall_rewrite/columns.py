"""The columnar fast path of ``check`` and ``relax`` (numpy).

The object path (check.py, relax.py) examines each entry with Python
objects and produces every diagnostic; at 10^5 entries that costs seconds.
Here the same rules are applied to whole columns of the table at once, for
the case that matters for throughput: a binary with nothing to report.

The contract is one-sided.  ``check_columns`` either proves that the
object path would report nothing at all (no error, no warning) and returns
what it would have learned, as columns -- or it returns None, and the
object path runs and produces the diagnostics.  ``relax_columns`` makes the
writes the object path would make and proves its output with
``check_columns`` of the output bytes, or returns None.  Every rule below
names the object-path rule it mirrors; where mirroring one exactly would be
costly, the columns refuse the case instead (never a different answer).
The per-arch part is a backend's ColumnHooks (arch/__init__.py); a backend
without them always takes the object path.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np

from dyncall_rewrite import abi, site_rules
from dyncall_rewrite.arch import CodeFacts
from dyncall_rewrite.elf import Image
from dyncall_rewrite.landing import targets_ok
from dyncall_rewrite.model import OP_JMP, Analysis, SiteColumns, key_context
from dyncall_rewrite.tables import Key, Table
from dyncall_rewrite.vec import gather, isin_sorted, le_bytes, unique_inverse


def site_records(table: Table) -> np.ndarray:
    return np.frombuffer(table.data, np.dtype(abi.SITE_ENTRY_DTYPE))


def check_columns(
    an: Analysis, table: Table, key_of: object, facts: CodeFacts | None = None
) -> SiteColumns | None:
    """The rules of site_rules over columns, stage by stage, for an image
    the object path would report nothing about; None otherwise (or when
    undecidable here).  ``key_of(cell)``: check's key lookup.  ``facts``:
    instruction boundaries proven for these bytes already (relax's
    output)."""
    img, be = an.image, an.backend
    hooks = be.column_hooks()
    if hooks is None or an.diagnostics:
        return None
    if table.addr + len(table.data) >= 1 << 62:
        return None  # addresses near the top of the 64-bit space: int64 columns could wrap
    rules = site_rules.RULES
    c = _entry_columns(an, hooks, table)
    if (c.kind == abi.DYNCALL_KIND_INLINE).any():
        return None  # inline guards (their owner, their literal): the object path
    if not rules.holds("site-fields", c):
        return None
    c.tc = hooks.trampolines(c.tramp, img.symbol_address(abi.DYNCALL_RETPOLINE_THUNK))
    if not rules.holds("trampoline", c) or not _key_columns(an, c, key_of) or not rules.holds("site-key", c):
        return None
    c.target_exec = (c.target != 0) & (img.file_offsets(c.target, 1, exec_only=True) >= 0)
    if not rules.holds("branch", c):
        return None
    c.has_site = c.site != 0
    c.labelled = c.has_site & (c.func != 0)
    c.op, c.starget = hooks.sites(c.site)
    c.want = hooks.site_ops(c.kind)
    # A func without a site: the object path ignores func; not mirrored.
    if (c.func[~c.has_site] != 0).any() or not rules.holds("site", c):
        return None
    if not _caller_columns(an, c, facts) or not rules.holds("callers", c):
        return None
    _interval_columns(be, c)
    if not rules.holds("overlap", c):
        return None
    return _site_columns(c)


def _entry_columns(an: Analysis, hooks: object, table: Table) -> SimpleNamespace:
    """The facts the rules read, as columns (SimpleNamespace ``c``): first
    the entries' own fields, absolute addresses where the field is not 0."""
    rec = site_records(table)
    n = len(rec)
    addr = table.addr + np.arange(n, dtype=np.int64) * abi.SITE_ENTRY_SIZE

    def absolute(name: str, off: int) -> np.ndarray:
        v = rec[name].astype(np.int64)
        return np.where(v != 0, addr + off + v, 0)

    return SimpleNamespace(
        image=an.image,
        backend=an.backend,
        hooks=hooks,
        n=n,
        addr=addr,
        site=absolute("site", abi.SITE_OFF_SITE),
        tramp=absolute("tramp", abi.SITE_OFF_TRAMP),
        keycell=absolute("keycell", abi.SITE_OFF_KEYCELL),
        func=absolute("func", abi.SITE_OFF_FUNC),
        version=rec["version"].astype(np.int64),
        kind=rec["kind"].astype(np.int64),
        flags=rec["flags"].astype(np.int64),
    )


def _key_columns(an: Analysis, c: SimpleNamespace, key_of: object) -> bool:
    """The key of each entry, per distinct key cell (check's lookup), its
    flags merged over the module and its link-time value (0: unknown).
    False when a key is missing (DC042: the object path says so)."""
    img = an.image
    cells, c.key_index = unique_inverse(c.keycell)
    keys: list[Key] = []
    kf_l: list[int] = []
    tg_l: list[int] = []
    cell_ok = True
    for cell in cells.tolist():
        key = key_of(cell)  # type: ignore[operator]
        if key is None:
            c.key_found = c.cell_ok = False
            return True
        cell_ok &= key.cell == cell or img.holds_key_cell(cell)
        kf, tg = key_context(img, key, an.key_flags_by_address)
        keys.append(key)
        kf_l.append(kf)
        tg_l.append(tg or 0)
    c.key_found, c.cell_ok, c.keys = True, cell_ok, keys
    c.key_flags = np.array(kf_l, np.int64)[c.key_index]
    c.target = np.array(tg_l, np.int64)[c.key_index]
    return True


def _caller_columns(an: Analysis, c: SimpleNamespace, facts: CodeFacts | None) -> bool:
    """Callers of the entries without a site (candidates by target, kept
    when they are instruction starts) and the instruction boundaries of
    every site; False when the decode cannot answer."""
    img, hooks = an.image, c.hooks
    has_site, labelled = c.has_site, c.labelled
    c.discover = ~has_site
    order = np.argsort(c.tramp)
    ca, cop, ct = hooks.find_branches_to(np.sort(c.tramp[c.discover]))
    ls, fs_ = c.site[labelled], c.site[has_site & ~labelled]
    queries = np.concatenate([ls, fs_, ca])
    if facts is None:
        ops = [c.op[labelled], c.op[has_site & ~labelled], cop]
        facts = hooks.decode_functions(queries, np.concatenate([hooks.site_lengths(o) for o in ops]))
    else:
        facts = facts.for_queries(queries)
    if facts is None:
        return False
    nl, nf = len(ls), len(fs_)
    # A labelled site's boundary is decoded from ``func``: it must be the
    # start of the function symbol the decode started from (else: refused).
    fstarts = img.func_starts_array
    k = np.searchsorted(fstarts, ls, side="right") - 1
    if len(ls) and ((k < 0).any() or (fstarts[np.maximum(k, 0)] != c.func[labelled]).any()):
        return False
    c.facts = facts
    c.boundaries_ok = facts.is_start[: nl + nf].all()
    keep = facts.is_start[nl + nf :]
    c.ca, c.cop, c.ct = ca[keep], cop[keep], ct[keep]
    c.c_ent = order[np.searchsorted(c.tramp[order], c.ct)]
    c.counts = np.bincount(c.c_ent, minlength=c.n)
    return True


def _interval_columns(be: object, c: SimpleNamespace) -> None:
    """All callers by (entry, address), and the intervals every entry owns
    (trampoline with its padding, patchable sites)."""
    e_site = np.flatnonzero(c.has_site)
    c_entry = np.concatenate([e_site, c.c_ent])
    c_addr = np.concatenate([c.site[c.has_site], c.ca])
    c_op = np.concatenate([c.op[c.has_site], c.cop]).astype(np.int64)
    c_target = np.concatenate([c.starget[c.has_site], c.ct])
    c_len = c.hooks.site_lengths(c_op)
    o2 = np.lexsort((c_addr, c_entry))
    c.c_entry, c.c_addr, c.c_op, c.c_target, c.c_len = (
        c_entry[o2],
        c_addr[o2],
        c_op[o2],
        c_target[o2],
        c_len[o2],
    )
    pad, ssz = be.tramp_pad, be.site_size  # type: ignore[attr-defined]
    c.iv_start = np.concatenate([c.tramp - pad, c.c_addr])
    c.iv_end = np.concatenate([c.tramp + np.maximum(c.tc.size, ssz), c.c_addr + c.c_len])


def _site_columns(c: SimpleNamespace) -> SiteColumns:
    tc = c.tc
    return SiteColumns(
        c.hooks,
        c.addr,
        c.site,
        c.tramp,
        c.keycell,
        c.func,
        c.version,
        c.kind,
        c.flags,
        tc.size.astype(np.int64),
        tc.unpatched,
        tc.branch,
        tc.retpoline.astype(np.int64),
        tc.slow_target,
        c.key_index,
        c.keys,
        c.key_flags,
        c.target,
        c.c_entry,
        c.c_addr,
        c.c_op,
        c.c_len,
        c.c_target,
        c.facts,
    )


def _straddles(img: Image, addr: np.ndarray, n: int) -> np.ndarray:
    """relax._straddles over a column: a function symbol starts inside
    [addr, addr+n)."""
    fs = img.func_starts_array
    k = np.searchsorted(fs, addr, side="right")
    return (k < len(fs)) & (fs[np.minimum(k, max(len(fs) - 1, 0))] < addr + n) if len(fs) else addr < 0


# -- relax ------------------------------------------------------------------


@dataclass
class Writes:
    """Same-size writes as columns: one row per kind of write (what, its
    rank among an entry's writes in the object path, owning entries,
    addresses, old and new bytes as (n, width) arrays)."""

    rows: list[tuple[str, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)

    def add(
        self, what: str, order: int, entry: np.ndarray, addr: np.ndarray, old: np.ndarray, new: np.ndarray
    ) -> None:
        if len(addr):
            self.rows.append((what, order, entry, addr, old, new))

    def count(self) -> int:
        return sum(len(r[3]) for r in self.rows)

    def patches(self) -> list[tuple[int, int, int, bytes, bytes, str]]:
        """(entry, order, addr, old, new, what), in the object path's order."""
        out = []
        for what, order, entry, addr, old, new in self.rows:
            for e, a, o, nw in zip(entry.tolist(), addr.tolist(), old, new, strict=True):
                out.append((e, order, a, o.tobytes(), nw.tobytes(), what))
        out.sort(key=lambda r: (r[0], r[1]))
        return out


@dataclass
class ColumnRelax:
    data: bytearray
    writes: Writes
    filled: int
    padding: int
    resolved: int
    runs: list[tuple[int, int]]  # rewritten NOP runs (start, length)
    expect_site: np.ndarray
    expect_flags: np.ndarray


def relax_columns(img: Image, an: Analysis, opts: object) -> ColumnRelax | None:
    """relax.relax's writes, computed over columns (same policy, same
    order); None when a case needs the object path."""
    cols = an.columns
    assert cols is not None
    w = Writes()
    site = cols.site.copy()
    filled = 0
    if opts.fill_sites and an.backend.patches_sites:  # type: ignore[attr-defined]
        got = _fill_writes(img, cols, w, site)
        if got is None:
            return None
        filled = got
    runs: list[tuple[int, int]] = []
    if opts.canonicalize_padding:  # type: ignore[attr-defined]
        got_runs = _padding_writes(img, an.backend, cols, w)
        if got_runs is None:
            return None
        runs = sorted(got_runs)
    flags = cols.flags.copy()
    resolved_n = 0
    if opts.resolve:  # type: ignore[attr-defined]
        got = _resolve_writes(img, an.backend, cols, w, site, flags, opts)
        if got is None:
            return None
        resolved_n = got
    data = _apply(img, w)
    if data is None:
        return None
    return ColumnRelax(data, w, filled, len(runs), resolved_n, runs, site, flags)


def _fill_writes(img: Image, cols: SiteColumns, w: Writes, site: np.ndarray) -> int | None:
    """1. Fill ``site`` of entries with exactly one verified caller."""
    n = cols.n
    counts = np.bincount(cols.c_entry, minlength=n)
    first = np.searchsorted(cols.c_entry, np.arange(n))
    one = (cols.site == 0) & (cols.func == 0) & (counts == 1)
    ix = np.flatnonzero(one)
    ca = cols.c_addr[np.minimum(first[ix], len(cols.c_addr) - 1)]
    rel = ca - cols.addr[ix]
    good = (rel >= -(2**31)) & (rel < 2**31)
    ix, ca, rel = ix[good], ca[good], rel[good]
    offs = img.file_offsets(cols.addr[ix], 4)
    if (offs < 0).any():
        return None
    w.add("site-field", 0, ix, cols.addr[ix], gather(img.u8, offs, 4), le_bytes(rel, 4))
    site[ix] = ca
    return len(ix)


def _padding_writes(img: Image, be: Any, cols: SiteColumns, w: Writes) -> list[tuple[int, int]] | None:
    """2. Canonical NOP padding before compiler-labelled sites."""
    got = _paddings(img, be, cols)
    if got is None:
        return None
    runs: list[tuple[int, int]] = []
    ix, start, length = got
    for ln in np.unique(length).tolist():
        m = length == ln
        canon = np.frombuffer(be.canonical_nops(ln), np.uint8)
        offs = img.file_offsets(start[m], ln)
        if (offs < 0).any():
            return None
        old = gather(img.u8, offs, ln)
        diff = (old != canon).any(axis=1)
        w.add("padding", 1, ix[m][diff], start[m][diff], old[diff], np.broadcast_to(canon, old[diff].shape))
        runs += list(zip(start[m][diff].tolist(), [ln] * int(diff.sum()), strict=True))
    return runs


def _resolvable(img: Image, be: Any, cols: SiteColumns, site: np.ndarray, opts: Any) -> np.ndarray:
    """relax._resolvable and the checks of relax._resolve, per entry."""
    hooks, kf, fl, tg = cols.hooks, cols.key_flags, cols.flags, cols.target
    can = (fl & abi.DYNCALL_SITE_RESOLVED == 0) & (tg != 0)
    can &= cols.kind != abi.DYNCALL_KIND_COND  # relax._resolvable
    can &= (fl & abi.DYNCALL_SITE_TYPE_KEY == 0) & (kf & abi.DYNCALL_KEY_TYPE == 0)
    const = kf & abi.DYNCALL_KEY_CONST != 0
    init = (kf & abi.DYNCALL_KEY_ESCAPES == 0) & (fl & abi.DYNCALL_SITE_FRESH != 0)
    can &= const | (init if opts.resolve_initializers else False)
    can &= ~isin_sorted(tg, np.sort(cols.tramp))  # a key holding a trampoline: left to the runtime
    can &= img.file_offsets(tg, 1, exec_only=True) >= 0
    can &= targets_ok(img, fl, tg)  # landing pads kept (landing.py)
    can &= hooks.branch_in_range(cols.tramp, tg)
    ssz = be.site_size
    can &= ~_straddles(img, cols.tramp, ssz)
    patch_site = (site != 0) & be.patches_sites
    can &= ~patch_site | (hooks.branch_in_range(site, tg) & ~_straddles(img, site, ssz))
    return can


def _resolve_writes(
    img: Image, be: Any, cols: SiteColumns, w: Writes, site: np.ndarray, flags: np.ndarray, opts: Any
) -> int | None:
    """3. Link-time targets (relax._resolvable, relax._resolve)."""
    hooks, fl, tg, ssz = cols.hooks, cols.flags, cols.target, be.site_size
    ix = np.flatnonzero(_resolvable(img, be, cols, site, opts))
    fo = img.file_offsets(cols.addr[ix] + abi.SITE_OFF_FLAGS, 2)
    to = img.file_offsets(cols.tramp[ix], ssz)
    if (fo < 0).any() or (to < 0).any():
        return None
    newf = fl[ix] | abi.DYNCALL_SITE_RESOLVED
    w.add("flags", 2, ix, cols.addr[ix] + abi.SITE_OFF_FLAGS, gather(img.u8, fo, 2), le_bytes(newf, 2))
    old_t = gather(img.u8, to, ssz)
    new_t = hooks.encode_branches(np.full(len(ix), OP_JMP), cols.tramp[ix], tg[ix], old_t)
    w.add("trampoline", 3, ix, cols.tramp[ix], old_t, new_t)
    sx = ix[((site != 0) & be.patches_sites)[ix]]
    so = img.file_offsets(site[sx], ssz)
    if (so < 0).any():
        return None
    old_s = gather(img.u8, so, ssz)
    new_s = hooks.encode_branches(hooks.site_ops(cols.kind[sx]), site[sx], tg[sx], old_s)
    ch = (old_s != new_s).any(axis=1)
    w.add("site", 4, sx[ch], site[sx][ch], old_s[ch], new_s[ch])
    flags[ix] = newf
    return len(ix)


def _apply(img: Image, w: Writes) -> bytearray | None:
    """The output bytes.  The byte ranges are distinct (the check proved
    trampolines, sites and table entries disjoint; _paddings keeps NOP runs
    off them); checked anyway, since overlapping writes applied by kind
    would not be what the object path, writing entry by entry, does."""
    data = bytearray(img.data)
    if w.rows:
        w_s = np.concatenate([r[3] for r in w.rows])
        w_e = np.concatenate([r[3] + r[5].shape[1] for r in w.rows])
        o = np.argsort(w_s, kind="stable")
        if len(o) > 1 and (w_s[o][1:] < np.maximum.accumulate(w_e[o])[:-1]).any():
            return None
    out8 = np.frombuffer(data, np.uint8)
    for _what, _o, _e, a, _old, new in w.rows:
        offs = img.file_offsets(a, new.shape[1])
        out8[offs[:, None] + np.arange(new.shape[1])] = new
    del out8
    return data


def _paddings(img: Image, be: object, cols: SiteColumns) -> tuple[np.ndarray, ...] | None:
    """(entry, start, length) of the NOP runs relax may rewrite: the
    padding before a labelled site that no decoded branch of its function
    targets inside, that overlaps no trampoline, site or caller
    (relax._owned_ranges), that holds no key's link-time value inside
    (relax._inside), and that no other labelled site's decode crosses
    (relax._decoded_elsewhere).  None when the branch targets are unknown."""
    lab = np.flatnonzero((cols.site != 0) & (cols.func != 0))
    site, func = cols.site[lab], cols.func[lab]
    start, length = cols.hooks.nop_paddings(cols.facts, site, func)
    m = length > 0
    lab, site, func, start, length = lab[m], site[m], func[m], start[m], length[m]
    if not len(lab):
        return lab, start, length
    bt = cols.facts.branch_targets()
    if bt is None:
        return None
    b_addr, b_tgt = bt
    lo = np.searchsorted(b_tgt, start, side="right")
    hi = np.searchsorted(b_tgt, start + length, side="left")
    bad = np.zeros(len(lab), bool)
    ssz = be.site_size  # type: ignore[attr-defined]
    for i in np.flatnonzero(hi > lo).tolist():
        src = b_addr[lo[i] : hi[i]]
        bad[i] = bool(((src >= func[i]) & (src < site[i] + ssz)).any())
    # Runs overlapping what an entry owns (relax._owned_ranges) or holding
    # a key's link-time value inside (relax._inside).
    own_s = np.concatenate([cols.tramp - be.tramp_pad, cols.c_addr])  # type: ignore[attr-defined]
    own_e = np.concatenate([cols.tramp + np.maximum(cols.tramp_size, ssz), cols.c_addr + cols.c_len])
    o = np.argsort(own_s, kind="stable")
    own_s, own_reach = own_s[o], np.maximum.accumulate(own_e[o])
    k = np.searchsorted(own_s, start + length, side="left")
    bad |= (k > 0) & (own_reach[np.maximum(k - 1, 0)] > start)
    lt = np.sort(cols.target[cols.target != 0])
    j = np.searchsorted(lt, start, side="right")
    bad |= (j < len(lt)) & (lt[np.minimum(j, max(len(lt) - 1, 0))] < start + length) if len(lt) else False
    # Other labelled decodes [f, s) with f != func crossing the run.
    all_lab = (cols.site != 0) & (cols.func != 0)
    f_all, s_all = cols.func[all_lab], cols.site[all_lab]
    o = np.lexsort((s_all, f_all))
    f_all, s_all = f_all[o], s_all[o]
    reach = np.maximum.accumulate(s_all)
    g0 = np.searchsorted(f_all, func, side="left")
    g1 = np.searchsorted(f_all, func, side="right")
    kk = np.searchsorted(f_all, start + length, side="left")
    before = (g0 > 0) & (reach[np.maximum(g0 - 1, 0)] > start)
    bad |= before
    for i in np.flatnonzero(kk > g1).tolist():
        bad[i] |= bool((s_all[g1[i] : kk[i]] > start[i]).any())
    return lab[~bad], start[~bad], length[~bad]
