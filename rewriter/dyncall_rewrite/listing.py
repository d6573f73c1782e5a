"""``list``: every site with its function, key, kind, state and target."""

from __future__ import annotations

from typing import Any

from dyncall_rewrite import abi
from dyncall_rewrite.check import Analysis, SiteInfo


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
    return {
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
    return (
        f"#{r['index']} {r['kind']} site={sites} ({r['site_source']})"
        f" function={r['function'] or '-'} key={r['key'] or '-'}{'[' + kf + ']' if kf else ''}"
        f" tramp=0x{r['trampoline']:x} state={r['state']} target={target}{lt}"
        f" flags={'|'.join(r['flags']) or '-'}"
    )
