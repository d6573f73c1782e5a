#!/usr/bin/env python3
"""Count the retpoline executions in a callgrind profile (callgrind.out file).

    realworld_callgrind.py [--by-caller N] CALLGRIND_OUT...

A retpoline execution is a call into a retpoline thunk: the compilers' named
thunks (__x86_indirect_thunk_<reg> of GCC, __llvm_retpoline_<reg> of Clang,
__dyncall_retpoline_<reg> of the dyncall plugins) and the retpolines the
dyncall runtime generates at run time in anonymous executable memory, which
callgrind reports as functions named by their address in no object. Every
retpoline, named or not, has the same shape:

    T:   call X          ; the only instruction of T that runs architecturally
         pause; lfence; jmp .
    X:   mov %reg,(%rsp) ; overwrite the return address with the target
         ret

and callgrind records it as a call from the caller into T plus a recursive
call (named T'2) into T: the inner `call X` at T lands in the same function
(for named thunks) or in a new anonymous function at X (for generated code).
So: named thunks: the calls into the thunk's name; anonymous code: the calls
into an anonymous function whose cost per call is exactly 2 instructions
(X: mov + ret), made from anonymous code. Deterministic for a given binary
and input. Prints JSON {"total": N, "named": N, "generated": N, "by_caller":
{...}} (by_caller: the N hottest callers).
"""

import json
import re
import sys
from collections import defaultdict

THUNK = re.compile(
    r"^(__x86_indirect_thunk_\w+|__llvm_retpoline_\w+|__llvm_lvi_thunk_\w+"
    r"|__x86_indirect_call_thunk_\w+|__x86_indirect_jump_thunk_\w+"
    r"|__dyncall_retpoline_\w+)$"
)
ANON = re.compile(r"^0x[0-9a-f]+$")


def parse(path):
    """Return (calls[(caller, callee)] = n, self_ir[fn] = Ir, anon_obj[fn])."""
    names = {"fn": {}, "ob": {}}
    calls = defaultdict(int)
    self_ir = defaultdict(int)
    obj_of = {}
    cur_fn = cur_ob = None
    cfn = cob = None
    pending_call = None
    ev_index = 0
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("events:"):
                evs = line.split()[1:]
                ev_index = evs.index("Ir") if "Ir" in evs else 0
                continue
            m = re.match(r"^(c?)(fn|ob|fl|fi|fe)=(?:\((\d+)\))?\s*(.*)$", line)
            if m:
                c, kind, num, name = m.groups()
                if kind in ("fn", "ob"):
                    table = names[kind]
                    if num is not None:
                        if name:
                            table[num] = name
                        name = table.get(num, name)
                    if kind == "fn":
                        if c:
                            cfn = name
                        else:
                            cur_fn = name
                            cfn = None
                            cob = None
                            obj_of.setdefault(cur_fn, cur_ob)
                    else:
                        if c:
                            cob = name
                        else:
                            cur_ob = name
                continue
            if line.startswith("calls="):
                pending_call = int(line.split("=", 1)[1].split()[0])
                continue
            if line[0].isdigit() or line[0] in "+-*":
                parts = line.split()
                if pending_call is not None:
                    calls[(cur_fn, cfn)] += pending_call
                    if cob is not None:
                        obj_of.setdefault(cfn, cob)
                    pending_call = None
                    cfn = None
                    cob = None
                else:
                    # position + event costs: self cost of cur_fn
                    cost = parts[1 + ev_index] if len(parts) > 1 + ev_index else "0"
                    self_ir[cur_fn] += int(cost)
    return calls, self_ir, obj_of


def count(paths, top=0):
    named = generated = 0
    by_caller = defaultdict(int)
    for path in paths:
        calls, self_ir, obj_of = parse(path)
        callee_calls = defaultdict(int)
        for (_, callee), n in calls.items():
            callee_calls[callee] += n
        for (caller, callee), n in calls.items():
            if callee is None:
                continue
            if THUNK.match(callee):
                named += n
                by_caller[caller] += n
            elif ANON.match(callee) and caller and ANON.match(caller.split("'")[0]):
                ob = obj_of.get(callee) or ""
                if ob not in ("", "???") and not ob.startswith("???"):
                    continue
                if self_ir.get(callee, 0) == 2 * callee_calls[callee]:
                    generated += n
                    by_caller["(dyncall runtime stub)"] += n
    res = {"total": named + generated, "named": named, "generated": generated}
    if top:
        res["by_caller"] = dict(sorted(by_caller.items(), key=lambda kv: -kv[1])[:top])
    return res


def main():
    args = sys.argv[1:]
    top = 0
    if args[:1] == ["--by-caller"]:
        top = int(args[1])
        args = args[2:]
    if not args:
        sys.exit(__doc__)
    print(json.dumps(count(args, top), indent=1))


if __name__ == "__main__":
    main()
