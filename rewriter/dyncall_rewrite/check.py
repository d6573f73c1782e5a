"""``check``: validate every entry of __dyncall_sites / __dyncall_keys.

The result is an Analysis (model.py): the diagnostics plus what was learned
about each site (trampoline state, callers, key, link-time target), which
``list`` and ``relax`` reuse.  Diagnostic codes are listed in
diagnostics.py.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter

from dyncall_rewrite import abi
from dyncall_rewrite.arch import Backend, CodeFacts, backend_for
from dyncall_rewrite.columns import check_columns
from dyncall_rewrite.diagnostics import CODES, ERROR, Diagnostic
from dyncall_rewrite.elf import Image
from dyncall_rewrite.model import MAX_FUNC_SPAN, Analysis, SiteInfo, key_context
from dyncall_rewrite.tables import Key, read_table


def check(
    img: Image,
    backend: Backend | None = None,
    reuse: Analysis | None = None,
    columns: bool = True,
    facts: CodeFacts | None = None,
) -> Analysis:
    """Check ``img``.  ``reuse``: the analysis of an image this one was
    derived from by same-length rewrites of instruction operands, NOP runs
    and table fields (relax): the instruction boundaries and callers it
    verified are taken over instead of decoding the code again.

    ``columns``: try the columnar fast path first (columns.py), which
    either proves the image clean or defers to the object path below;
    ``facts``: instruction boundaries already proven for these bytes (then
    the object path is not run: None is returned when the columns cannot
    prove the image clean)."""
    be = backend or backend_for(img)
    an = Analysis(img, be)
    diags = an.diagnostics
    sites_t = read_table(img, abi.DYNCALL_SITES_SECTION, abi.SITE_ENTRY_SIZE, diags)
    keys_t = read_table(img, abi.DYNCALL_KEYS_SECTION, abi.KEY_ENTRY_SIZE, diags)
    an.has_tables = sites_t is not None or keys_t is not None or bool(diags)
    if keys_t is not None:
        _check_keys(an, abi.decode_keys(keys_t.data, keys_t.addr))
    if sites_t is not None and columns and reuse is None:
        try:
            cols = check_columns(an, sites_t, _key_lookup(an), facts)
        except OverflowError:
            cols = None  # a value beyond int64 (corrupted input): the object path
        if cols is not None:
            an.columns = cols
            return an
    if facts is not None:
        return None  # type: ignore[return-value]
    if sites_t is not None:
        _check_sites(an, abi.decode_sites(sites_t.data, sites_t.addr), reuse)
    diags.sort(key=lambda d: (d.address if d.address is not None else -1, d.code))
    return an


# -- keys -----------------------------------------------------------------


def _check_keys(an: Analysis, entries: list[abi.KeyEntry]) -> None:
    img, diags = an.image, an.diagnostics
    T = abi.DYNCALL_KEYS_SECTION
    by_address: dict[int, int] = {}
    for e in entries:
        bad = False
        if e.version != abi.DYNCALL_ABI_VERSION:
            diags.append(
                Diagnostic(
                    "DC001",
                    e.addr,
                    f"key entry #{e.index} has version {e.version}, expected {abi.DYNCALL_ABI_VERSION}",
                    e.index,
                    T,
                )
            )
            bad = True
        if e.kind != abi.DYNCALL_KIND_KEY:
            diags.append(
                Diagnostic(
                    "DC003",
                    e.addr,
                    f"key entry #{e.index} has kind {e.kind}, expected {abi.DYNCALL_KIND_KEY} (key)",
                    e.index,
                    T,
                )
            )
            bad = True
        if e.flags & ~abi.KEY_FLAGS_ALL or e.reserved:
            diags.append(
                Diagnostic(
                    "DC004",
                    e.addr,
                    f"key entry #{e.index} has unknown flags"
                    f" 0x{e.flags & ~abi.KEY_FLAGS_ALL:x} or reserved field"
                    f" 0x{e.reserved:x}",
                    e.index,
                    T,
                )
            )
        if not e.keycell or img.mapped(e.keycell, 8) is None:
            diags.append(
                Diagnostic(
                    "DC005",
                    e.addr,
                    f"key entry #{e.index}: key cell 0x{e.keycell:x} is outside the image",
                    e.index,
                    T,
                )
            )
            continue
        if not img.holds_key_cell(e.keycell):
            diags.append(
                Diagnostic(
                    "DC040",
                    e.keycell,
                    f"key cell of key entry #{e.index} is not an aligned pointer the loader can relocate"
                    " (PIE/DSO: writable RELRO data; fixed-address executable: any data)",
                    e.index,
                    T,
                )
            )
        name = None
        if e.name:
            name = img.read_cstring(e.name)
            if name is None:
                diags.append(
                    Diagnostic(
                        "DC043",
                        e.addr,
                        f"key entry #{e.index}: name at"
                        f" 0x{e.name:x} is outside the image or not"
                        " NUL-terminated",
                        e.index,
                        T,
                    )
                )
        key = an.keys.get(e.keycell)
        if key is None:
            key = an.keys[e.keycell] = Key(e.keycell, name=name, address=img.pointer(e.keycell))
        elif key.entries and key.flags != e.flags:
            diags.append(
                Diagnostic(
                    "DC044",
                    e.addr,
                    f"key entry #{e.index} and #{key.entries[0].index}"
                    f" describe the same key cell with different flags",
                    e.index,
                    T,
                )
            )
        key.entries.append(e)
        key.flags |= e.flags
        if bad:
            continue
        a = key.address
        if a.known:
            by_address[a.value] = by_address.get(a.value, 0) | e.flags
            writable_needed = not e.flags & abi.DYNCALL_KEY_CONST
            if img.mapped(a.value, 8) is None or (writable_needed and not img.is_writable(a.value, 8)):
                what = "outside the image" if img.mapped(a.value, 8) is None else "in read-only memory"
                diags.append(
                    Diagnostic(
                        "DC041",
                        e.addr,
                        f"key {key.label!r} (0x{a.value:x}) is {what}, but it is not const",
                        e.index,
                        T,
                    )
                )
    an.key_flags_by_address = by_address


# -- sites ----------------------------------------------------------------


def _check_sites(an: Analysis, entries: list[abi.SiteEntry], reuse: Analysis | None = None) -> None:
    img, be, diags = an.image, an.backend, an.diagnostics
    T = abi.DYNCALL_SITES_SECTION
    thunk = img.symbol_address(abi.DYNCALL_RETPOLINE_THUNK)
    flags_by_addr = an.key_flags_by_address
    to_discover: dict[int, SiteInfo] = {}
    labelled: list[SiteInfo] = []
    unlabelled_filled: list[SiteInfo] = []

    def err(code: str, addr: int | None, msg: str, info: SiteInfo) -> None:
        diags.append(Diagnostic(code, addr, msg, info.entry.index, T))
        if CODES[code][0] == ERROR:
            info.valid = False

    # Fast path: an entry whose every check passes is accepted with a few
    # comparisons; anything unusual goes through the detailed path below,
    # which produces the diagnostics (the throughput goal is 10^5 entries
    # in well under a second).
    V = abi.DYNCALL_ABI_VERSION
    BAD_FLAGS = ~abi.SITE_FLAGS_ALL
    RES, RETP, TK = abi.DYNCALL_SITE_RESOLVED, abi.DYNCALL_SITE_RETPOLINE, abi.DYNCALL_SITE_TYPE_KEY
    keyctx: dict[int, tuple[int, int | None]] = {}
    lookup_key = _key_lookup(an)

    small_image = img.segments[-1].end - img.segments[0].vaddr < 1 << 31 if img.segments else True
    # Trampoline and site bytes of every entry, compared in bulk against
    # the ABI encodings (None: not the expected bytes -> detailed path).
    fast_tramps = be.trampolines_fast([e.tramp for e in entries], thunk)
    fast_sites = be.sites_fast([e.site for e in entries])
    site_ops = {1: be.site_op(1), 2: be.site_op(2)}
    sites_out = an.sites
    for e, t, br in zip(entries, fast_tramps, fast_sites, strict=True):
        info = SiteInfo(e)
        sites_out.append(info)
        fl = e.flags
        if t is not None and e.version == V and (e.kind == 1 or e.kind == 2) and not fl & BAD_FLAGS:
            key = lookup_key(e.keycell)
            if not (fl & RETP and t.slow == "plain") and key is not None:
                kc = keyctx.get(e.keycell)
                if kc is None:
                    kc = keyctx[e.keycell] = key_context(img, key, flags_by_addr)
                kflags, target = kc
                if bool(fl & TK) == bool(kflags & abi.DYNCALL_KEY_TYPE):
                    bt = t.branch_target
                    if fl & RES:
                        ok = target is not None and bt == target and img.is_exec(bt)
                    else:
                        ok = bt == t.unpatched_target and (
                            small_image
                            or not (
                                target is not None
                                and kflags & abi.DYNCALL_KEY_CONST
                                and img.is_exec(target)
                                and be.encode_branch("jmp", e.tramp, target) is None
                            )
                        )
                    if ok and e.site:
                        ok = (
                            br is not None
                            and br.op == site_ops[e.kind]
                            and (br.target == e.tramp or (bool(fl & RES) and br.target == bt))
                            and be.site_alignment_problem(e.site, bool(e.func)) is None
                            and (
                                not e.func
                                or (img.mapped(e.func) is not None and 0 <= e.site - e.func <= MAX_FUNC_SPAN)
                            )
                        )
                        if ok:
                            info.callers = [br]  # type: ignore[list-item]
                            (labelled if e.func else unlabelled_filled).append(info)
                    elif ok:
                        ok = not e.func  # a func without a site is odd: diagnose
                        if ok:
                            to_discover[e.tramp] = info
                    if ok:
                        info.tramp, info.key, info.key_flags, info.target = t, key, kflags, target
                        continue
        where = f"site entry #{e.index}"
        if e.version != abi.DYNCALL_ABI_VERSION:
            err("DC001", e.addr, f"{where} has version {e.version}, expected {abi.DYNCALL_ABI_VERSION}", info)
        if e.kind not in (abi.DYNCALL_KIND_CALL, abi.DYNCALL_KIND_TAIL):
            kn = abi.KIND_NAMES.get(e.kind)
            why = f"reserved kind {e.kind} ({kn})" if kn else f"unknown kind {e.kind}"
            err("DC003", e.addr, f"{where} has {why}; expected 1 (call) or 2 (tail)", info)
        if e.flags & ~abi.SITE_FLAGS_ALL:
            err("DC004", e.addr, f"{where} has unknown flags 0x{e.flags & ~abi.SITE_FLAGS_ALL:x}", info)
        for fname, v, n in (
            ("tramp", e.tramp, 1),
            ("keycell", e.keycell, 8),
            ("site", e.site, 1),
            ("func", e.func, 1),
        ):
            if (v or fname in ("tramp", "keycell")) and img.mapped(v, n) is None:
                err("DC005", e.addr, f"{where}: {fname} 0x{v:x} is outside the image", info)
        if not info.valid:
            continue

        # Trampoline.
        if not img.is_exec(e.tramp, be.site_size):
            err("DC010", e.tramp, f"trampoline of {where} is not in an executable segment", info)
            continue
        t = info.tramp = be.read_trampoline(e.tramp, thunk)
        for code, msg in t.problems:
            err(code, e.tramp, msg, info)
        if e.flags & abi.DYNCALL_SITE_RETPOLINE and t.slow == "plain":
            err(
                "DC016",
                e.tramp + be.site_size,
                "the site is flagged RETPOLINE but its trampoline's slow path is a plain indirect jmp *%r10",
                info,
            )

        # Key.
        key = info.key = lookup_key(e.keycell)
        if key is None:
            pv = img.pointer(e.keycell)
            what = f"key 0x{pv.value:x}" if pv.known else f"key {pv.symbol}" if pv.symbol else "key"
            err(
                "DC042",
                e.addr,
                f"{what} of {where} (key cell 0x{e.keycell:x}) has no __dyncall_keys entry",
                info,
            )
        elif key.cell != e.keycell and not img.holds_key_cell(e.keycell):
            err(
                "DC040",
                e.keycell,
                f"key cell of {where} is not an aligned pointer the loader can relocate"
                " (PIE/DSO: writable RELRO data; fixed-address executable: any data)",
                info,
            )
        else:
            st = bool(e.flags & abi.DYNCALL_SITE_TYPE_KEY)
            kt = bool(key.flags & abi.DYNCALL_KEY_TYPE)
            if st != kt:
                err(
                    "DC044",
                    e.addr,
                    f"{where} says TYPE_KEY={int(st)} but key {key.label!r} says TYPE={int(kt)}",
                    info,
                )
            info.key_flags, info.target = key_context(img, key, flags_by_addr)

        # Patchable branch state.
        resolved = bool(e.flags & abi.DYNCALL_SITE_RESOLVED)
        if t.branch_target is not None:
            if not resolved and t.branch_target != t.unpatched_target:
                err(
                    "DC015",
                    e.tramp,
                    f"trampoline branch goes to 0x{t.branch_target:x}, not to its"
                    " slow path, but the entry is not flagged RESOLVED",
                    info,
                )
            elif resolved:
                problem = None
                if info.target is not None and t.branch_target != info.target:
                    problem = be.resolve_problem(e.tramp, info.target)
                if problem is not None:
                    err(
                        "DC050",
                        e.tramp,
                        f"entry is RESOLVED but its link-time target 0x{info.target:x} cannot be"
                        f" reached directly: {problem}",
                        info,
                    )
                elif info.target is None or t.branch_target != info.target:
                    want = f"0x{info.target:x}" if info.target is not None else "unknown at link time"
                    err(
                        "DC051",
                        e.tramp,
                        f"RESOLVED trampoline branch goes to 0x{t.branch_target:x};"
                        f" the key's link-time value is {want}",
                        info,
                    )
                elif not img.is_exec(t.branch_target):
                    err(
                        "DC052",
                        e.tramp,
                        f"RESOLVED target 0x{t.branch_target:x} is not in an executable segment",
                        info,
                    )
        if (
            info.target is not None
            and not resolved
            and be.far_target_is_error
            and info.key_flags & abi.DYNCALL_KEY_CONST
            and img.is_exec(info.target)
            and be.encode_branch("jmp", e.tramp, info.target) is None
        ):
            err(
                "DC050",
                e.tramp,
                f"link-time target 0x{info.target:x} of const key is out of rel32 range of the trampoline",
                info,
            )

        # Site.
        if e.site:
            if not img.is_exec(e.site, be.site_size):
                err("DC020", e.site, f"site of {where} is not in an executable segment", info)
                continue
            br = be.decode_site(e.site)
            want = be.site_op(e.kind)
            if br is None or br.op != want:
                err(
                    "DC021",
                    e.site,
                    f"site is `{be.describe(e.site)}`, expected `{be.op_names[want]}`"
                    f" for a {abi.KIND_NAMES[e.kind]} entry",
                    info,
                )
                continue
            ok_targets = {e.tramp}
            if resolved and t.branch_target is not None:
                ok_targets.add(t.branch_target)
            if br.target not in ok_targets:
                err("DC022", e.site, f"site {want}s 0x{br.target:x}, not its trampoline 0x{e.tramp:x}", info)
            info.callers = [br]
            p = be.site_alignment_problem(e.site, compiler_labelled=bool(e.func))
            if p:
                err(p[0], e.site, p[1], info)
            if e.func:
                if not 0 <= e.site - e.func <= MAX_FUNC_SPAN:
                    err("DC024", e.site, f"site is not inside its function (func 0x{e.func:x})", info)
                else:
                    labelled.append(info)
            else:
                unlabelled_filled.append(info)
        else:
            to_discover[e.tramp] = info

    if reuse is not None:
        known = {b.addr for i in reuse.sites if i.valid for b in i.callers}
        callers_of = {i.entry.tramp: i.callers for i in reuse.sites if i.valid and not i.entry.site}
        labelled = [i for i in labelled if i.entry.site not in known]
        unlabelled_filled = [i for i in unlabelled_filled if i.entry.site not in known]
        for tramp in [t for t in to_discover if t in callers_of]:
            to_discover.pop(tramp).callers = list(callers_of[tramp])

    # Instruction boundaries of labelled sites: decode [func, site+len).
    if labelled:
        streams = be.decode_ranges([(i.entry.func, i.entry.site + be.site_size) for i in labelled])
        for info, stream in zip(labelled, streams, strict=True):
            info.stream = stream
            if not (stream.ends_with(info.entry.site) or stream.has_start(info.entry.site)):
                err(
                    "DC024",
                    info.entry.site,
                    "site is not at an instruction boundary when its"
                    f" function (0x{info.entry.func:x}) is decoded from the start",
                    info,
                )
    if unlabelled_filled:
        starts = be.instruction_boundaries([i.entry.site for i in unlabelled_filled])
        for info in unlabelled_filled:
            if info.entry.site not in starts:
                err(
                    "DC024",
                    info.entry.site,
                    "site is not at an instruction boundary of the enclosing code",
                    info,
                )

    # Discovery of sites the compiler could not label.
    if to_discover:
        found = be.find_branches_to(set(to_discover))
        for tramp, info in to_discover.items():
            info.callers = sorted(found.get(tramp, []), key=lambda b: b.addr)
            want = be.site_op(info.entry.kind)
            if not info.callers:
                err(
                    "DC026",
                    tramp,
                    f"no call or jump reaches the trampoline of site entry #{info.entry.index} (dead site?)",
                    info,
                )
            for b in info.callers:
                if not b.patchable or b.op != want:
                    err(
                        "DC027",
                        b.addr,
                        f"`{be.describe(b.addr)}` reaches trampoline 0x{tramp:x}"
                        f" but a {abi.KIND_NAMES[info.entry.kind]} entry expects `{be.op_names[want]}`:"
                        " the runtime patches the trampoline, not this branch, so calls through it"
                        " cost one extra direct jump (branch -> trampoline -> target) and it is never"
                        " a direct call",
                        info,
                    )
                elif p := be.site_alignment_problem(b.addr, compiler_labelled=False):
                    err(p[0], b.addr, p[1], info)

    _check_overlaps(an)


def _key_lookup(an: Analysis) -> Callable[[int], Key | None]:
    """The key of a site's key cell: the key entry's, or else, for a cell
    that is not the one of a key entry (compilers may emit a cell per
    site), the key whose address or loader symbol the cell holds."""
    img, keys = an.image, an.keys
    by_addr: dict[int, Key] = {}
    by_sym: dict[str, Key] = {}
    for k in keys.values():
        if k.address.known:
            by_addr.setdefault(k.address.value, k)
        elif k.address.symbol:
            by_sym.setdefault(k.address.symbol, k)
    other_cells: dict[int, Key | None] = {}

    def lookup(cell: int) -> Key | None:
        k = keys.get(cell)
        if k is not None:
            return k
        if cell in other_cells:
            return other_cells[cell]
        if img.holds_key_cell(cell):
            pv = img.pointer(cell)
            k = by_addr.get(pv.value) if pv.known else by_sym.get(pv.symbol or "")
        other_cells[cell] = k
        return k

    return lookup


def _check_overlaps(an: Analysis) -> None:
    diags = an.diagnostics
    T = abi.DYNCALL_SITES_SECTION
    be = an.backend
    n = be.site_size
    pad = be.tramp_pad
    seen_site: dict[int, int] = {}
    seen_tramp: dict[int, int] = {}
    # (start, end, owner, what) of every trampoline and patchable site
    ivs: list[tuple[int, int, SiteInfo, str]] = []
    app = ivs.append
    for info in an.sites:
        e = info.entry
        t = info.tramp
        ix = e.index
        if t is not None:
            k = seen_tramp.setdefault(e.tramp, ix)
            if k != ix:
                diags.append(
                    Diagnostic("DC031", e.tramp, f"site entries #{k} and #{ix} share one trampoline", ix, T)
                )
                info.valid = False
            else:
                app((e.tramp - pad, e.tramp + (t.size if t.size > n else n), info, "trampoline"))
        for b in info.callers:
            k = seen_site.setdefault(b.addr, ix)
            if k != ix:
                diags.append(
                    Diagnostic(
                        "DC030",
                        b.addr,
                        f"site entries #{k} and #{ix} describe the same site",
                        ix,
                        T,
                    )
                )
                info.valid = False
            elif b.patchable:
                app((b.addr, b.addr + b.length, info, "site"))
    ivs.sort(key=itemgetter(0))  # stable: ties keep the order above
    prev_end = -1
    prev: tuple[int, int, SiteInfo, str] | None = None
    for iv in ivs:
        start, end, o, w = iv
        if start < prev_end and prev is not None and o is not prev[2]:
            p = prev[2]
            diags.append(
                Diagnostic(
                    "DC032",
                    start,
                    f"{w} of site entry #{o.entry.index} overlaps {prev[3]} of site entry #{p.entry.index}",
                    o.entry.index,
                    T,
                )
            )
            o.valid = False
        if end > prev_end:
            prev_end, prev = end, iv
