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

import numpy as np

from dyncall_rewrite import abi
from dyncall_rewrite.arch import CodeFacts
from dyncall_rewrite.elf import Image
from dyncall_rewrite.landing import targets_ok
from dyncall_rewrite.model import MAX_FUNC_SPAN, OP_JMP, Analysis, SiteColumns, key_context
from dyncall_rewrite.tables import Key, Table
from dyncall_rewrite.vec import gather, isin_sorted, le_bytes, unique_inverse


def site_records(table: Table) -> np.ndarray:
    return np.frombuffer(table.data, np.dtype(abi.SITE_ENTRY_DTYPE))


def check_columns(
    an: Analysis, table: Table, key_of: object, facts: CodeFacts | None = None
) -> SiteColumns | None:
    """The object path's ``_check_sites`` over columns, for an image it
    would report nothing about; None otherwise (or when undecidable here).
    ``key_of(cell)``: check's key lookup.  ``facts``: instruction
    boundaries proven for these bytes already (relax's output)."""
    img, be = an.image, an.backend
    hooks = be.column_hooks()
    if hooks is None or an.diagnostics:
        return None
    if table.addr + len(table.data) >= 1 << 62:
        return None  # addresses near the top of the 64-bit space: int64 columns could wrap
    rec = site_records(table)
    n = len(rec)
    addr = table.addr + np.arange(n, dtype=np.int64) * abi.SITE_ENTRY_SIZE

    def absolute(name: str, off: int) -> np.ndarray:
        v = rec[name].astype(np.int64)
        return np.where(v != 0, addr + off + v, 0)

    site = absolute("site", abi.SITE_OFF_SITE)
    tramp = absolute("tramp", abi.SITE_OFF_TRAMP)
    keycell = absolute("keycell", abi.SITE_OFF_KEYCELL)
    func = absolute("func", abi.SITE_OFF_FUNC)
    version = rec["version"].astype(np.int64)
    kind = rec["kind"].astype(np.int64)
    flags = rec["flags"].astype(np.int64)
    # Entry fields (DC001, DC003, DC004).
    if not (
        (version == abi.DYNCALL_ABI_VERSION).all()
        and ((kind == abi.DYNCALL_KIND_CALL) | (kind == abi.DYNCALL_KIND_TAIL)).all()
        and not (flags & ~abi.SITE_FLAGS_ALL).any()
    ):
        return None
    # Trampolines exactly as the ABI says (DC010-DC014), one per entry
    # (DC031), and a retpoline slow path where flagged (DC016).
    thunk = img.symbol_address(abi.DYNCALL_RETPOLINE_THUNK)
    tc = hooks.trampolines(tramp, thunk)
    if not tc.ok.all() or _has_duplicates(tramp):
        return None
    if ((flags & abi.DYNCALL_SITE_RETPOLINE != 0) & (tc.retpoline == 0)).any():
        return None
    # Keys (DC040, DC042, DC044), per distinct key cell.
    cells, key_index = unique_inverse(keycell)
    keys: list[Key] = []
    kf_l: list[int] = []
    tg_l: list[int] = []
    for c in cells.tolist():
        key = key_of(c)  # type: ignore[operator]
        if key is None:
            return None
        kf, tg = key_context(img, key, an.key_flags_by_address)
        keys.append(key)
        kf_l.append(kf)
        tg_l.append(tg or 0)
    key_flags = np.array(kf_l, np.int64)[key_index]
    target = np.array(tg_l, np.int64)[key_index]
    if ((flags & abi.DYNCALL_SITE_TYPE_KEY != 0) != (key_flags & abi.DYNCALL_KEY_TYPE != 0)).any():
        return None
    # Patchable branch state (DC015, DC050-DC052).
    resolved = flags & abi.DYNCALL_SITE_RESOLVED != 0
    known = target != 0
    target_exec = known & (img.file_offsets(target, 1, exec_only=True) >= 0)
    ok_resolved = known & (tc.branch == target) & target_exec
    segs = img.segments
    small_image = not segs or segs[-1].end - segs[0].vaddr < 1 << 31
    far = known & (key_flags & abi.DYNCALL_KEY_CONST != 0) & target_exec
    far &= ~hooks.branch_in_range(tramp, target)
    ok_unresolved = (tc.branch == tc.unpatched) & (small_image | ~far)
    if not np.where(resolved, ok_resolved, ok_unresolved).all():
        return None
    # Sites the table names (DC020-DC024).
    has_site = site != 0
    labelled = has_site & (func != 0)
    op, starget = hooks.sites(site)
    want = hooks.site_ops(kind)
    ok_site = (op == want) & ((starget == tramp) | (resolved & (starget == tc.branch)))
    ok_site &= hooks.site_alignment_ok(site, labelled)
    span = site - func
    ok_site &= ~labelled | (img.mapped_mask(func) & (span >= 0) & (span <= MAX_FUNC_SPAN))
    if not ok_site[has_site].all() or (func[~has_site] != 0).any():
        return None
    # Callers of the entries without a site: candidates by target, kept
    # when they are instruction starts (DC026, DC027 when unusual).
    discover = ~has_site
    order = np.argsort(tramp)
    tr_sorted = tramp[order]
    ca, cop, ct = hooks.find_branches_to(np.sort(tramp[discover]))
    ls, fs_ = site[labelled], site[has_site & ~labelled]
    queries = np.concatenate([ls, fs_, ca])
    if facts is None:
        lengths = np.concatenate(
            [
                hooks.site_lengths(op[labelled]),
                hooks.site_lengths(op[has_site & ~labelled]),
                hooks.site_lengths(cop),
            ]
        )
        facts = hooks.decode_functions(queries, lengths)
    else:
        facts = facts.for_queries(queries)
    if facts is None:
        return None
    nl, nf = len(ls), len(fs_)
    if not facts.is_start[: nl + nf].all():
        return None
    # A labelled site's boundary is decoded from ``func``: it must be the
    # start of the function symbol the decode started from.
    fstarts = img.func_starts_array
    k = np.searchsorted(fstarts, ls, side="right") - 1
    if len(ls) and ((k < 0).any() or (fstarts[np.maximum(k, 0)] != func[labelled]).any()):
        return None
    keep = facts.is_start[nl + nf :]
    ca, cop, ct = ca[keep], cop[keep], ct[keep]
    c_ent = order[np.searchsorted(tr_sorted, ct)]
    if not (cop == want[c_ent]).all() or not hooks.site_alignment_ok(ca, np.zeros(len(ca), bool)).all():
        return None
    counts = np.bincount(c_ent, minlength=n)
    if (counts[discover] == 0).any():
        return None
    # All callers, by (entry, address).
    e_site = np.flatnonzero(has_site)
    c_entry = np.concatenate([e_site, c_ent])
    c_addr = np.concatenate([site[has_site], ca])
    c_op = np.concatenate([op[has_site], cop]).astype(np.int64)
    c_target = np.concatenate([starget[has_site], ct])
    c_len = hooks.site_lengths(c_op)
    o2 = np.lexsort((c_addr, c_entry))
    c_entry, c_addr, c_op, c_target, c_len = c_entry[o2], c_addr[o2], c_op[o2], c_target[o2], c_len[o2]
    # Duplicates and overlaps (DC030, DC032): every trampoline and site
    # interval disjoint from all others.
    if _has_duplicates(c_addr):
        return None
    pad, ssz = be.tramp_pad, be.site_size
    starts = np.concatenate([tramp - pad, c_addr])
    ends = np.concatenate([tramp + np.maximum(tc.size, ssz), c_addr + c_len])
    o3 = np.argsort(starts, kind="stable")
    s3, e3 = starts[o3], ends[o3]
    if len(s3) > 1 and (s3[1:] < np.maximum.accumulate(e3)[:-1]).any():
        return None
    return SiteColumns(
        hooks,
        addr,
        site,
        tramp,
        keycell,
        func,
        version,
        kind,
        flags,
        tc.size.astype(np.int64),
        tc.unpatched,
        tc.branch,
        tc.retpoline.astype(np.int64),
        tc.slow_target,
        key_index,
        keys,
        key_flags,
        target,
        c_entry,
        c_addr,
        c_op,
        c_len,
        c_target,
        facts,
    )


def _straddles(img: Image, addr: np.ndarray, n: int) -> np.ndarray:
    """relax._straddles over a column: a function symbol starts inside
    [addr, addr+n)."""
    fs = img.func_starts_array
    k = np.searchsorted(fs, addr, side="right")
    return (k < len(fs)) & (fs[np.minimum(k, max(len(fs) - 1, 0))] < addr + n) if len(fs) else addr < 0


def _has_duplicates(x: np.ndarray) -> bool:
    s = np.sort(x)
    return bool((s[1:] == s[:-1]).any())


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
    be, hooks = an.backend, cols.hooks
    u8 = img.u8
    data = bytearray(img.data)
    w = Writes()
    n = cols.n
    site = cols.site.copy()
    # 1. Fill ``site`` of entries with exactly one verified caller.
    filled = 0
    if opts.fill_sites and be.patches_sites:  # type: ignore[attr-defined]
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
        w.add("site-field", 0, ix, cols.addr[ix], gather(u8, offs, 4), le_bytes(rel, 4))
        site[ix] = ca
        filled = len(ix)
    # 2. Canonical NOP padding before compiler-labelled sites.
    runs: list[tuple[int, int]] = []
    if opts.canonicalize_padding:  # type: ignore[attr-defined]
        got = _paddings(img, be, cols)
        if got is None:
            return None
        ix, start, length = got
        for ln in np.unique(length).tolist():
            m = length == ln
            canon = np.frombuffer(be.canonical_nops(ln), np.uint8)
            offs = img.file_offsets(start[m], ln)
            if (offs < 0).any():
                return None
            old = gather(u8, offs, ln)
            diff = (old != canon).any(axis=1)
            w.add(
                "padding", 1, ix[m][diff], start[m][diff], old[diff], np.broadcast_to(canon, old[diff].shape)
            )
            runs += list(zip(start[m][diff].tolist(), [ln] * int(diff.sum()), strict=True))
    runs.sort()
    # 3. Link-time targets (relax._resolvable, relax._resolve).
    flags = cols.flags.copy()
    resolved_n = 0
    if opts.resolve:  # type: ignore[attr-defined]
        kf, fl, tg = cols.key_flags, cols.flags, cols.target
        can = (fl & abi.DYNCALL_SITE_RESOLVED == 0) & (tg != 0)
        can &= (fl & abi.DYNCALL_SITE_TYPE_KEY == 0) & (kf & abi.DYNCALL_KEY_TYPE == 0)
        const = kf & abi.DYNCALL_KEY_CONST != 0
        init = (kf & abi.DYNCALL_KEY_ESCAPES == 0) & (fl & abi.DYNCALL_SITE_FRESH != 0)
        can &= const | (init if opts.resolve_initializers else False)  # type: ignore[attr-defined]
        can &= ~isin_sorted(tg, np.sort(cols.tramp))  # a key holding a trampoline: left to the runtime
        can &= img.file_offsets(tg, 1, exec_only=True) >= 0
        can &= targets_ok(img, fl, tg)  # landing pads kept (landing.py)
        can &= hooks.branch_in_range(cols.tramp, tg)
        ssz = be.site_size
        can &= ~_straddles(img, cols.tramp, ssz)
        patch_site = (site != 0) & be.patches_sites
        can &= ~patch_site | (hooks.branch_in_range(site, tg) & ~_straddles(img, site, ssz))
        ix = np.flatnonzero(can)
        fo = img.file_offsets(cols.addr[ix] + abi.SITE_OFF_FLAGS, 2)
        to = img.file_offsets(cols.tramp[ix], ssz)
        if (fo < 0).any() or (to < 0).any():
            return None
        newf = fl[ix] | abi.DYNCALL_SITE_RESOLVED
        w.add("flags", 2, ix, cols.addr[ix] + abi.SITE_OFF_FLAGS, gather(u8, fo, 2), le_bytes(newf, 2))
        old_t = gather(u8, to, ssz)
        new_t = hooks.encode_branches(np.full(len(ix), OP_JMP), cols.tramp[ix], tg[ix], old_t)
        w.add("trampoline", 3, ix, cols.tramp[ix], old_t, new_t)
        sx = ix[patch_site[ix]]
        so = img.file_offsets(site[sx], ssz)
        if (so < 0).any():
            return None
        old_s = gather(u8, so, ssz)
        new_s = hooks.encode_branches(hooks.site_ops(cols.kind[sx]), site[sx], tg[sx], old_s)
        ch = (old_s != new_s).any(axis=1)
        w.add("site", 4, sx[ch], site[sx][ch], old_s[ch], new_s[ch])
        flags[ix] = newf
        resolved_n = len(ix)
    # Apply.  The byte ranges are distinct (the check proved trampolines,
    # sites and table entries disjoint; _paddings keeps NOP runs off them);
    # checked anyway, since overlapping writes applied by kind would not be
    # what the object path, writing entry by entry, does.
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
    return ColumnRelax(data, w, filled, len(runs), resolved_n, runs, site, flags)


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
