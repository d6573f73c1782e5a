"""``list``: every site with its function, key, kind, state and target.

``records``: the records as dicts, from the object path's SiteInfo (the
text listing).  ``json_lines``: their JSON text; when check proved the
image clean (``Analysis.columns``) it is built from the columns without a
SiteInfo or a dict per entry, addresses symbolized in bulk, fields encoded
a column at a time (json.dump with indent took ~17 s for 200,000 sites;
tests/test_listing.py: the same text as json.dumps of ``records``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np

from dyncall_rewrite import abi
from dyncall_rewrite.callers import caller_callees, caller_counts
from dyncall_rewrite.model import OP_NAMES, Analysis, PrologueInfo, SiteColumns, SiteInfo
from dyncall_rewrite.vec import unique_inverse


def records(an: Analysis) -> list[dict[str, Any]]:
    """The ``list`` record of every site entry, in table order."""
    return [site_record(an, s) for s in an.sites]


def _sym(an: Analysis, addr: int | None) -> str | None:
    if not addr:
        return None
    return an.image.symbolize(addr)


def site_record(an: Analysis, info: SiteInfo) -> dict[str, Any]:
    e = info.entry
    img = an.image
    t = info.tramp
    branch = t.branch_target if t is not None else None
    current = None
    if t is not None and branch is not None:
        current = None if branch == t.unpatched_target else branch
    key = info.key
    rec = {
        "index": e.index,
        "kind": abi.KIND_NAMES.get(e.kind, str(e.kind)),
        "flags": abi.flag_names(e.flags, abi.SITE_FLAG_NAMES),
        "site": e.site or None,
        "sites": [{"address": b.addr, "symbol": _sym(an, b.addr), "instruction": b.op} for b in info.callers],
        "site_source": "compiler" if e.func else ("rewriter" if e.site else "runtime"),
        "function": (
            img.symbolize(e.func)
            if e.func
            else (_sym(an, info.callers[0].addr) or "").split("+")[0] or None
            if info.callers
            else None
        ),
        "trampoline": e.tramp,
        "trampoline_symbol": _sym(an, e.tramp),
        "slow_path": t.slow if t is not None else None,
        "key": key.label if key is not None else None,
        "key_address": key.address.value if key is not None and key.address.known else None,
        "key_flags": abi.flag_names(info.key_flags, abi.KEY_FLAG_NAMES),
        "state": info.state,
        "target": current,
        "target_symbol": _sym(an, current),
        "link_time_value": info.target,
        "link_time_symbol": _sym(an, info.target),
    }
    if e.kind == abi.DYNCALL_KIND_INLINE:
        # an inline guard: its literal (the runtime stores its target there)
        rec["literal"] = e.keycell
        rec["literal_value"] = _lit_value(an, e.keycell)
    return rec


def _lit_value(an: Analysis, lit: int) -> int | None:
    pv = an.image.pointer(lit)
    return pv.value if pv.known else None


def format_record(r: dict[str, Any]) -> str:
    sites = (
        ",".join(f"0x{s['address']:x}" + (f"<{s['symbol']}>" if s["symbol"] else "") for s in r["sites"])
        or "-"
    )
    if r["state"] == "resolved":
        target = f"0x{r['target']:x}" + (f"<{r['target_symbol']}>" if r["target_symbol"] else "")
    else:
        target = "-"
    lt = ""
    if r["link_time_value"] is not None and r["state"] != "resolved":
        lt = " initial=" + (r["link_time_symbol"] or f"0x{r['link_time_value']:x}")
    kf = "|".join(r["key_flags"])
    if "literal" in r:
        v = r["literal_value"]
        lt += f" literal=0x{r['literal']:x}" + (
            " (sentinel)" if v == r["literal"] else f" holds={'?' if v is None else hex(v)}"
        )
    return (
        f"#{r['index']} {r['kind']} site={sites} ({r['site_source']})"
        f" function={r['function'] or '-'} key={r['key'] or '-'}{'[' + kf + ']' if kf else ''}"
        f" tramp=0x{r['trampoline']:x} state={r['state']} target={target}{lt}"
        f" flags={'|'.join(r['flags']) or '-'}"
    )


def json_lines(an: Analysis) -> Iterator[str]:
    """``json.dumps`` of every record (default separators), one per entry;
    from the columns, column by column, when check proved the image clean
    (the same text: tests/test_listing.py)."""
    if an.columns is None:
        enc = json.JSONEncoder(check_circular=False).encode
        return map(enc, records(an))
    return _column_json(an, an.columns)


_Q = json.encoder.encode_basestring_ascii  # type: ignore[attr-defined]
_SLICE = 8192  # entries encoded at a time (bounded memory)
_SOURCES = ('"compiler"', '"rewriter"', '"runtime"')


def _js(s: str | None) -> str:
    return "null" if s is None else _Q(s)


def _symbols(an: Analysis, addrs: np.ndarray) -> list[str | None]:
    """The symbol of each address (None for 0 or none), each distinct
    address symbolized once."""
    if len(addrs) < 2 or (addrs[1:] > addrs[:-1]).all():  # distinct already (trampolines, callers)
        return an.image.symbolize_many(addrs)
    u, inv = unique_inverse(addrs)
    names = an.image.symbolize_many(u)
    return [names[i] for i in inv.tolist()]


def _by_value(encode: Any, *cols: np.ndarray) -> list[str]:
    """encode(*values) of each row of the columns (small non-negative
    integers), computed once per distinct row."""
    code = np.zeros(len(cols[0]), np.int64)
    radix = 1
    for c in cols:
        m = int(c.max()) + 1 if len(c) else 1
        if int(c.min(initial=0)) < 0 or radix * m >= 1 << 62:
            rows = list(zip(*(c.tolist() for c in cols), strict=True))
            memo: dict[tuple[int, ...], str] = {}
            return [memo[r] if r in memo else memo.setdefault(r, encode(*r)) for r in rows]
        code = code * m + c
        radix *= m
    _, first, inv = np.unique(code, return_index=True, return_inverse=True)
    enc = [encode(*(int(c[f]) for c in cols)) for f in first.tolist()]
    return [enc[i] for i in inv.tolist()]


def _column_json(an: Analysis, c: SiteColumns) -> Iterator[str]:
    """``json.dumps(site_record(...))`` of every entry from the columns,
    by slices of entries."""
    keys = [(_Q(k.label), str(k.address.value) if k.address.known else "null") for k in c.keys]

    def kind_flags(kind: int, fl: int) -> str:
        kn = _Q(abi.KIND_NAMES.get(kind, str(kind)))
        return f'"kind": {kn}, "flags": {json.dumps(abi.flag_names(fl, abi.SITE_FLAG_NAMES))}'

    def key_state(rp: int, ki: int, kf: int, rs: int) -> str:
        key, ka = keys[ki]
        kfs = json.dumps(abi.flag_names(kf, abi.KEY_FLAG_NAMES))
        return (
            f'"slow_path": {_Q("retpoline" if rp else "plain")}, "key": {key}, "key_address": {ka},'
            f' "key_flags": {kfs}, "state": {_Q("resolved" if rs else "slow")}'
        )

    for lo in range(0, c.n, _SLICE):
        hi = min(lo + _SLICE, c.n)
        clo, chi = np.searchsorted(c.c_entry, [lo, hi]).tolist()
        cs = slice(clo, chi)
        n = hi - lo
        # Callers: the site, or the branches discovery found (by entry, address).
        c_entry, c_addr = c.c_entry[cs] - lo, c.c_addr[cs]
        c_sym = _symbols(an, c_addr)
        c_json = [
            f'{{"address": {a}, "symbol": {_js(s)}, "instruction": "{OP_NAMES[op]}"}}'
            for a, s, op in zip(c_addr.tolist(), c_sym, c.c_op[cs].tolist(), strict=True)
        ]
        counts = np.bincount(c_entry, minlength=n)
        first = np.searchsorted(c_entry, np.arange(n)).tolist()
        if len(c_json) == n and (counts == 1).all():
            sites = [f"[{j}]" for j in c_json]
        else:
            sites = [
                "[" + ", ".join(c_json[f : f + k]) + "]" for f, k in zip(first, counts.tolist(), strict=True)
            ]
        # function: the func symbol (compiler-labelled), else the first
        # caller's symbol without its offset.
        func, site = c.func[lo:hi], c.site[lo:hi]
        f_sym = _symbols(an, func)
        function = [
            _js(fs) if fn else "null" if not k else _js((c_sym[f] or "").split("+")[0] or None)
            for fn, fs, k, f in zip(func.tolist(), f_sym, counts.tolist(), first, strict=True)
        ]
        site_src = [
            f'"site": {st or "null"}, "sites": {ss}, "site_source": {_SOURCES[0 if fn else 1 if st else 2]}'
            for st, ss, fn in zip(site.tolist(), sites, func.tolist(), strict=True)
        ]
        tramp = c.tramp[lo:hi]
        branch, target, flags = c.branch[lo:hi], c.target[lo:hi], c.flags[lo:hi]
        unpatched = branch == c.unpatched[lo:hi]
        current = np.where(unpatched, -1, branch)  # -1: the unpatched branch
        cols = zip(
            _by_value(kind_flags, c.kind[lo:hi], flags),
            site_src,
            function,
            tramp.tolist(),
            _symbols(an, tramp),
            _by_value(
                key_state,
                c.retpoline[lo:hi],
                c.key_index[lo:hi],
                c.key_flags[lo:hi],
                (flags & abi.DYNCALL_SITE_RESOLVED != 0).astype(np.int64),
            ),
            _target_json(an, current, "target"),
            _target_json(an, np.where(target == 0, -1, target), "link_time"),
            strict=True,
        )
        for i, (kf, ss, fn, tr, trs, ks, cur, lt) in enumerate(cols, lo):
            yield (
                f'{{"index": {i}, {kf}, {ss}, "function": {fn}, "trampoline": {tr},'
                f' "trampoline_symbol": {_js(trs)}, {ks}, {cur}, {lt}}}'
            )


def _target_json(an: Analysis, values: np.ndarray, name: str) -> list[str]:
    """``"<name>": value, "<name>_symbol": symbol`` per entry: null for -1
    (no target), a symbol only for a non-zero value."""
    u, inv = unique_inverse(values)
    syms = an.image.symbolize_many(np.maximum(u, 0))
    sym_key = "target_symbol" if name == "target" else f"{name}_symbol"
    val_key = "target" if name == "target" else f"{name}_value"
    enc = [
        f'"{val_key}": {"null" if v < 0 else v}, "{sym_key}": {_js(s)}'
        for v, s in zip(u.tolist(), syms, strict=True)
    ]
    return [enc[i] for i in inv.tolist()]


# -- list --prologues ---------------------------------------------------------


def prologue_callers(an: Analysis) -> dict[int, int] | None:
    """Listed caller sites per hookable function (callers.py: the runtime's
    caller table), or None when the image has none (linked without
    ``--emit-relocs``)."""
    return caller_counts(an.image, an.backend, caller_callees(an))


def prologue_record(an: Analysis, p: PrologueInfo, callers: dict[int, int] | None = None) -> dict[str, Any]:
    """The ``list --prologues`` record of one __patchable_function_entries
    record (bytes of NOPs before the entry and at it; ``hookable``: the
    runtime's layout) or XRay entry sled (``sled`` "xray": its 28 bytes
    counted as the entry's).  ``call_sites``: its direct calls and jumps in
    the caller table (``callers``, prologue_callers), None without a table
    or for a function the runtime does not hook."""
    return {
        "index": p.index,
        "record": p.record,
        "function": p.function,
        "function_symbol": _sym(an, p.function),
        "pre_entry_bytes": p.pre if p.function is not None else None,
        "landing_pad": p.pad,
        "entry_nop_bytes": p.entry_nops if p.function is not None else None,
        "hookable": p.hookable,
        "state": p.state,
        "no_vec": p.no_vec,
        "sled": p.sled,
        "vec_regs": p.vec_regs,
        "vec2_regs": p.vec2_regs,
        "vec_width": p.vec_width,
        "variadic": p.variadic,
        "int_regs": p.int_regs,
        "int_x8": p.int_x8,
        "entry_nops": list(p.entry_insns),
        "direct_entry": p.direct,
        "call_sites": None if callers is None or p.function is None else callers.get(p.function),
    }


def _entry_fields(r: dict[str, Any]) -> str:
    """` entry=<count>x<bytes>` of the NOP instructions at the entry (x86-64:
    1x5, one 5-byte NOP: Clang, GCC with the dyncall plugin; 5x1, GCC
    alone), sizes joined by `+` if they differ; ` direct=yes|no` for a
    hookable one: whether the runtime makes the entry itself the jump."""
    sizes = r["entry_nops"]
    if not sizes:
        return ""
    shape = f"{len(sizes)}x{sizes[0]}" if len(set(sizes)) == 1 else "+".join(map(str, sizes))
    out = f" entry={shape}"
    if r["hookable"]:
        out += f" direct={'yes' if r['direct_entry'] else 'no'}"
    return out


def format_prologue(r: dict[str, Any]) -> str:
    rec = "-" if r["record"] is None else f"0x{r['record']:x}"
    fn, nops = "-", "-"
    if r["function"] is not None:
        fn = f"0x{r['function']:x}" + (f"<{r['function_symbol']}>" if r["function_symbol"] else "")
        nops = f"{r['pre_entry_bytes']}+{r['entry_nop_bytes']}"
    pad = (r["landing_pad"] or "-").replace(" ", "_")
    return (
        f"#{r['index']} record={rec} function={fn} nops={nops} pad={pad}"
        f" hookable={'yes' if r['hookable'] else 'no'} state={r['state']}"
        + _entry_fields(r)
        + f" callers={'-' if r['call_sites'] is None else r['call_sites']}"
        + f" novec={'yes' if r['no_vec'] else 'no'} sled={r['sled']}"
        f" vecregs={'-' if r['vec_regs'] is None else r['vec_regs']}"
        + (f" vecwidth={r['vec_width']}" if r["vec_width"] != 16 else "")
        + (f" vec2regs={r['vec2_regs']}" if r.get("vec2_regs") is not None else "")
        + (" variadic" if r["variadic"] else "")
        + ("" if r["int_regs"] is None else f" intregs={r['int_regs']}" + ("+x8" if r["int_x8"] else ""))
    )
