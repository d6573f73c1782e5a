"""Command line: ``dyncall-rewrite {check,relax,list}``.

Exit status: 0 success; 1 a problem was found or an error occurred (one
line ``dyncall-rewrite: error: ...`` on stderr); 2 usage error (argparse).
The only place that prints errors or catches RewriteError.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import sys
from typing import Any

from dyncall_rewrite import __version__
from dyncall_rewrite.check import check
from dyncall_rewrite.diagnostics import ERROR, NOTE, WARNING
from dyncall_rewrite.elf import Image
from dyncall_rewrite.errors import RewriteError
from dyncall_rewrite.files import check_output, in_place_target, write_atomically
from dyncall_rewrite.listing import (
    format_prologue,
    format_record,
    json_lines,
    prologue_callers,
    prologue_record,
    records,
)
from dyncall_rewrite.model import Analysis
from dyncall_rewrite.relax import RelaxOptions, relax

PROG = "dyncall-rewrite"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Validate, relax and list the dyncall tables"
        " (__dyncall_sites, __dyncall_keys) of linked ELF files.",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    c = sub.add_parser("check", help="validate every entry; exit 1 on any problem")
    c.add_argument("files", nargs="+", metavar="ELF")
    c.add_argument("--json", action="store_true", help="machine-readable report on stdout")
    c.add_argument("--werror", action="store_true", help="treat warnings as problems (never notes)")
    c.add_argument("--no-lines", action="store_true", help="do not read DWARF for file:line")
    c.add_argument(
        "-q", "--quiet", action="store_true", help="print errors and warnings only (no notes, no summary)"
    )

    r = sub.add_parser("relax", help="canonicalize padding, fill sites, resolve link-time targets")
    r.add_argument("file", metavar="ELF")
    g = r.add_mutually_exclusive_group(required=True)
    g.add_argument("-o", "--output", metavar="OUT", help="write the result to OUT")
    g.add_argument("--in-place", action="store_true", help="replace ELF atomically")
    r.add_argument(
        "--resolve-initializers",
        action="store_true",
        help="also pre-resolve non-const, non-escaping keys of FRESH sites from their"
        " static initializer (precondition: no store to the key before the module's"
        " dyncall constructor runs)",
    )
    r.add_argument("--no-resolve", action="store_true", help="do not pre-resolve any target")
    r.add_argument("--no-padding", action="store_true", help="leave NOP padding as it is")
    r.add_argument("--no-fill", action="store_true", help="do not fill in discovered sites")
    r.add_argument("--json", action="store_true", help="report the changes as JSON")
    r.add_argument("-v", "--verbose", action="store_true", help="print every write")
    r.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")

    ls = sub.add_parser("list", help="every site with function, key, kind, state, target")
    ls.add_argument("file", metavar="ELF")
    ls.add_argument("--json", action="store_true")
    ls.add_argument(
        "--prologues",
        action="store_true",
        help="list the __patchable_function_entries records (patchable prologues) instead of the sites",
    )
    return p


def _cmd_check(args: argparse.Namespace) -> int:
    status = 0
    reports: list[dict[str, Any]] = []
    for path in args.files:
        img = Image.load(path)
        an = check(img)
        an.symbolize(with_lines=not args.no_lines)
        bad = [d for d in an.diagnostics if d.severity == ERROR or (args.werror and d.severity == WARNING)]
        if bad:
            status = 1
        if args.json:
            reports.append(
                {
                    "file": path,
                    "ok": not bad,
                    "arch": an.backend.name,
                    "has_tables": an.has_tables,
                    "sites": an.site_count,
                    "inline_guards": an.inline_count,
                    "keys": len(an.keys),
                    "errors": len(an.errors),
                    "warnings": len(an.warnings),
                    "notes": len(an.notes),
                    "diagnostics": [d.to_json() for d in an.diagnostics],
                }
            )
            if an.has_prologues:
                reports[-1]["patchable_entries"] = len(an.prologues)
            continue
        for d in an.diagnostics:
            if not (args.quiet and d.severity == NOTE):
                print(d.format(path))
        if not args.quiet:
            if not an.has_tables:
                print(f"{path}: no dyncall tables")
            else:
                print(
                    f"{path}: {an.site_count} sites,"
                    + (f" {an.inline_count} inline guards," if an.inline_count else "")
                    + f" {len(an.keys)} key cells:"
                    f" {len(an.errors)} errors, {len(an.warnings)} warnings, {len(an.notes)} notes"
                )
            if an.has_prologues:
                print(f"{path}: {len(an.prologues)} patchable function entries")
    if args.json:
        json.dump(reports if len(reports) != 1 else reports[0], sys.stdout, indent=1)
        print()
    return status


def _cmd_relax(args: argparse.Namespace) -> int:
    if not args.in_place:
        check_output(args.output)  # refused before any work (and again at the rename)
    img = Image.load(args.file)
    opts = RelaxOptions(
        fill_sites=not args.no_fill,
        canonicalize_padding=not args.no_padding,
        resolve=not args.no_resolve,
        resolve_initializers=args.resolve_initializers,
    )
    res = relax(img, opts)
    dest = args.file if args.in_place else args.output
    if args.in_place:
        if res.changed:
            write_atomically(res.data, in_place_target(args.file, img.file_stat), img.file_mode)
    elif res.changed or not (os.path.exists(dest) and os.path.samefile(dest, args.file)):
        write_atomically(res.data, dest, img.file_mode)
    if args.json:
        json.dump(
            {
                "file": args.file,
                "output": dest,
                "changed": res.changed,
                "filled_sites": res.filled,
                "canonicalized_padding": res.padding,
                "resolved_sites": res.resolved,
                "writes": [
                    {"address": p.addr, "what": p.what, "old": p.old.hex(), "new": p.new.hex()}
                    for p in res.patches
                ],
            },
            sys.stdout,
            indent=1,
        )
        print()
    elif not args.quiet:
        if args.verbose:
            for p in res.patches:
                print(f"0x{p.addr:x}: {p.what}: {p.old.hex(' ')} -> {p.new.hex(' ')}")
        print(
            f"{dest}: filled {res.filled} sites, canonicalized {res.padding} paddings,"
            f" resolved {res.resolved} sites ({res.write_count} writes)"
        )
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    img = Image.load(args.file)
    an = check(img)
    if args.prologues:
        return _list_prologues(args, an)
    if args.json:
        # One site per line: json.dump with indent is pure Python (~17 s
        # for 200,000 sites); json_lines encodes from the columns.
        head = json.dumps({"file": args.file, "arch": an.backend.name, "problems": len(an.errors)})
        out = sys.stdout
        out.write(head[:-1] + ', "sites": [\n')
        lines = json_lines(an)
        sep = ""
        while chunk := list(itertools.islice(lines, 4096)):
            out.write(sep + ",\n".join(chunk))
            sep = ",\n"
        out.write("\n]}\n")
    else:
        for r in records(an):
            print(format_record(r))
        if an.errors:
            print(f"{args.file}: {len(an.errors)} problems (run `{PROG} check`)")
    return 1 if an.errors else 0


def _list_prologues(args: argparse.Namespace, an: Analysis) -> int:
    callers = prologue_callers(an)
    recs = [prologue_record(an, p, callers) for p in an.prologues]
    if args.json:
        json.dump(
            {
                "file": args.file,
                "arch": an.backend.name,
                "problems": len(an.errors),
                "caller_table": callers is not None,
                "prologues": recs,
            },
            sys.stdout,
            indent=1,
        )
        print()
    else:
        for r in recs:
            print(format_prologue(r))
        if an.errors:
            print(f"{args.file}: {len(an.errors)} problems (run `{PROG} check`)")
    return 1 if an.errors else 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    # The commands allocate ~10^6 objects that live until the end (entries,
    # instruction records, writes) and create no cyclic garbage worth
    # collecting: the cyclic GC would only re-scan them (~20% of check).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return {"check": _cmd_check, "relax": _cmd_relax, "list": _cmd_list}[args.cmd](args)
    except RewriteError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{PROG}: error: interrupted", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 1
    except Exception as e:  # a bug in the tool: still one line, never a traceback
        where = f" ({type(e).__name__} at {_where(e)})"
        print(f"{PROG}: error: DC908: internal error: {e}{where}; please report it", file=sys.stderr)
        return 1
    finally:
        if gc_was_enabled:
            gc.enable()


def _where(e: BaseException) -> str:
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return "?"
    return f"{os.path.basename(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno}"
