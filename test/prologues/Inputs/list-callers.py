"""`dyncall-rewrite list --prologues --json` on stdin -> one line
`sites <symbol> <count>` per hookable function that the caller table
counts, or `table -` when the image has none (list-callers.c)."""

import json
import sys

d = json.load(sys.stdin)
if not d["caller_table"]:
    print("table -")
for r in d["prologues"]:
    if r["call_sites"] is not None and r["function_symbol"]:
        print(f"sites {r['function_symbol']} {r['call_sites']}")
