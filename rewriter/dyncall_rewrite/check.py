"""``check``: validate every entry of __dyncall_sites / __dyncall_keys.

The result is an Analysis (model.py): the diagnostics plus what was learned
about each site (trampoline state, callers, key, link-time target), which
``list`` and ``relax`` reuse.  The rules are in entry_rules.py and
site_rules.py, on the engine of rules.py; this module runs them in order:
the key table entry by entry, then the site table, first as one columnar
proof (columns.py) and, when that cannot prove the image clean, entry by
entry (the object path), which produces the diagnostics; then the
__patchable_function_entries records (prologues.py).
"""

from __future__ import annotations

from collections.abc import Callable

from dyncall_rewrite import abi, entry_rules, site_rules
from dyncall_rewrite.arch import Backend, CodeFacts, backend_for
from dyncall_rewrite.columns import check_columns
from dyncall_rewrite.elf import Image
from dyncall_rewrite.entry_rules import EntryContext, KeyCheck
from dyncall_rewrite.model import Analysis, SiteInfo, in_function
from dyncall_rewrite.prologues import check_prologues
from dyncall_rewrite.site_rules import Callers, SiteContext
from dyncall_rewrite.tables import Key, Table, find_table, table_of


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
    ectx = EntryContext(img, an.keys, diags)
    sites_t = _table(ectx, abi.DYNCALL_SITES_SECTION, abi.SITE_ENTRY_SIZE)
    keys_t = _table(ectx, abi.DYNCALL_KEYS_SECTION, abi.KEY_ENTRY_SIZE)
    an.has_tables = sites_t is not None or keys_t is not None or bool(diags)
    if keys_t is not None:
        an.key_flags_by_address = _check_keys(ectx, abi.decode_keys(keys_t.data, keys_t.addr))
    if sites_t is not None and columns and reuse is None:
        try:
            an.columns = check_columns(an, sites_t, _key_lookup(an), facts)
        except OverflowError:
            an.columns = None  # a value beyond int64 (corrupted input): the object path
    if an.columns is None:
        if facts is not None:
            return None  # type: ignore[return-value]
        if sites_t is not None:
            _check_sites(an, abi.decode_sites(sites_t.data, sites_t.addr), reuse)
    if reuse is None and facts is None:
        check_prologues(an)  # (relax never writes them: not checked again on its output)
    diags.sort(key=lambda d: (d.address if d.address is not None else -1, d.code))
    return an


def _table(ctx: EntryContext, name: str, entry_size: int) -> Table | None:
    sec = find_table(ctx.image, name, entry_size)
    if sec is None or not entry_rules.RULES.diagnose("table", ctx, sec):
        return None
    return table_of(sec)


# -- keys -----------------------------------------------------------------


def _check_keys(ctx: EntryContext, entries: list[abi.KeyEntry]) -> dict[int, int]:
    """Run the key rules on every key entry and register the keys (an.keys);
    returns the key flags merged over the module, by key address."""
    img, rules = ctx.image, entry_rules.RULES
    by_address: dict[int, int] = {}
    for e in entries:
        k = KeyCheck(e)
        if not rules.diagnose("key-entry", ctx, k):
            continue
        key = ctx.keys.get(e.keycell)
        if key is None:
            key = ctx.keys[e.keycell] = Key(e.keycell, name=k.name, address=img.pointer(e.keycell))
        key.entries.append(e)
        key.flags |= e.flags
        if not k.bad and key.address.known:
            by_address[key.address.value] = by_address.get(key.address.value, 0) | e.flags
        rules.diagnose("key-value", ctx, k)
    return by_address


# -- sites ----------------------------------------------------------------


def _check_sites(an: Analysis, entries: list[abi.SiteEntry], reuse: Analysis | None = None) -> None:
    """The object path: every rule of site_rules on every entry."""
    img, be = an.image, an.backend
    thunk = img.symbol_address(abi.DYNCALL_RETPOLINE_THUNK)
    ctx = SiteContext(
        img,
        be,
        an.diagnostics,
        _key_lookup(an),
        an.key_flags_by_address,
        thunk,
        # The ABI bytes read in bulk (most entries have exactly them).
        be.trampolines_fast([e.tramp for e in entries], thunk),
        be.sites_fast([e.site for e in entries]),
    )
    cs = Callers()
    check_entry = _entry_checker(ctx, cs)
    prev: abi.SiteEntry | None = None
    for e in entries:
        info = SiteInfo(e)
        if e.kind == abi.DYNCALL_KIND_INLINE and prev is not None:
            if prev.kind in (abi.DYNCALL_KIND_CALL, abi.DYNCALL_KIND_TAIL):
                info.op_kind = prev.kind
        an.sites.append(info)
        check_entry(info)
        prev = e
    if reuse is not None:
        _take_over(reuse, cs)
    rules = site_rules.RULES
    rules.diagnose("callers", ctx, cs)
    rules.diagnose("overlap", ctx, an.sites)


def _entry_checker(ctx: SiteContext, cs: Callers) -> Callable[[SiteInfo], None]:
    """The per-entry stages of one site entry (RuleSet.diagnose, unrolled:
    this runs for every entry); the entry joins the callers stage where it
    gets that far."""
    rules = site_rules.RULES
    fields_tramp = rules.entry_forms("site-fields") + rules.entry_forms("trampoline")
    key, branch, site = rules.entry_forms("site-key"), rules.entry_forms("branch"), rules.entry_forms("site")
    to_discover, unlabelled, labelled = cs.to_discover, cs.unlabelled_filled, cs.labelled

    def check_entry(info: SiteInfo) -> None:
        e = info.entry
        for fn in fields_tramp:
            if fn(ctx, info) is False:
                return
        if e.kind == abi.DYNCALL_KIND_INLINE:
            # no key (its keycell is the literal, DC033); its trampoline
            # must be unpatched; its sites as any site's
            site_rules.branch_unpatched(ctx, info)
        else:
            check_key_and_branch(info)
        if not e.site:
            to_discover[e.tramp] = info
            return
        for fn in site:
            if fn(ctx, info) is False:
                return
        if not e.func:
            unlabelled.append(info)
        elif in_function(e.site, e.func):
            labelled.append(info)

    def check_key_and_branch(info: SiteInfo) -> None:
        for fn in key:
            if fn(ctx, info) is False:
                break
        else:
            ctx.learn_key(info)
        for fn in branch:
            fn(ctx, info)

    return check_entry


def _take_over(reuse: Analysis, cs: Callers) -> None:
    """The boundaries and callers ``reuse`` verified on the input image."""
    known = {b.addr for i in reuse.sites if i.valid for b in i.callers}
    callers_of = {i.entry.tramp: i.callers for i in reuse.sites if i.valid and not i.entry.site}
    cs.labelled = [i for i in cs.labelled if i.entry.site not in known]
    cs.unlabelled_filled = [i for i in cs.unlabelled_filled if i.entry.site not in known]
    for tramp in [t for t in cs.to_discover if t in callers_of]:
        cs.to_discover.pop(tramp).callers = list(callers_of[tramp])


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
