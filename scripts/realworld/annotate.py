#!/usr/bin/env python3
"""Annotate the hot function pointers of SQLite and Expat with DYNCALL, in a
COPY of their sources: a worked example of annotating a real program.

    annotate.py [--build DIR] [--compiler clang-19|gcc-12] [--list]

Reads  build/realworld/sqlite3-amalgamation/{sqlite3.c,sqlite3.h},
       build/realworld/src/sqlite3/test/speedtest1.c, build/realworld/src/expat/expat/
Writes build/realworld/annotated/<compiler>/{sqlite3,expat}/ (files are rewritten
only when their content changes, so builds stay incremental).

Every edit is precise: it names a file, a struct (or a typedef'd anonymous
struct) and a field, or an exact line to insert after, and must match exactly
once, else the script stops with `annotate: <file>: <edit>: matched N times`.
A field edit appends ` DYNCALL` to the field's declaration, before its `;`:

    void (*xParseCell)(MemPage*,u8*,CellInfo*);   ->  ... ,CellInfo*) DYNCALL;
    XML_StartElementHandler m_startElementHandler; ->  ... m_startElementHandler DYNCALL;

Arrays of function pointers (Expat's `scanners[]`) are a separate group,
applied only when the dyncall compiler accepts an annotated array (a 3-line
probe compiled with `dyncall-cc <compiler>`); until then they stay plain.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

INCLUDE = "#include <dyncall.h> /* realworld: annotate.py */"

# --- SQLite (the amalgamation) -------------------------------------------------------
# Hot indirect calls by caller (callgrind, speedtest1 --size 5, retpoline build):
# sqlite3BtreeIndexMoveto (RecordCompare: a LOCAL variable, cannot be annotated),
# getCellInfo/computeCellSize/defragmentPage/checkTreePage (MemPage.xParseCell,
# xCellSize), getAndInitPage (Pager.xGet), sqlite3VdbeExec (FuncDef.xSFunc, mutex),
# vdbeSorterSort (SortSubtask.xCompare), sqlite3_step/reset/bind/column (mutex
# methods), sqlite3Malloc/pcache1Alloc/Free (mem methods), vdbeCompareMemString
# (CollSeq.xCmp), pager I/O (sqlite3_io_methods, sqlite3_vfs), page cache
# (sqlite3_pcache_methods2).
SQLITE_FIELDS = [
    ("MemPage", ["xCellSize", "xParseCell"]),  # per page: the value changes with the page kind
    ("Pager", ["xGet"]),
    ("FuncDef", ["xSFunc"]),
    ("SortSubtask", ["xCompare"]),
    ("CollSeq", ["xCmp"]),
    (
        "sqlite3_mutex_methods",
        [
            "xMutexInit",
            "xMutexEnd",
            "xMutexAlloc",
            "xMutexFree",
            "xMutexEnter",
            "xMutexTry",
            "xMutexLeave",
            "xMutexHeld",
            "xMutexNotheld",
        ],
    ),
    ("sqlite3_mem_methods", ["xMalloc", "xFree", "xRealloc", "xSize", "xRoundup"]),
    (
        "sqlite3_pcache_methods2",
        [
            "xCreate",
            "xCachesize",
            "xPagecount",
            "xFetch",
            "xUnpin",
            "xRekey",
            "xTruncate",
            "xDestroy",
            "xShrink",
        ],
    ),
    (
        "sqlite3_io_methods",
        [
            "xClose",
            "xRead",
            "xWrite",
            "xTruncate",
            "xSync",
            "xFileSize",
            "xLock",
            "xUnlock",
            "xCheckReservedLock",
            "xFileControl",
            "xSectorSize",
            "xDeviceCharacteristics",
        ],
    ),
    (
        "sqlite3_vfs",
        [
            "xOpen",
            "xDelete",
            "xAccess",
            "xFullPathname",
            "xRandomness",
            "xSleep",
            "xCurrentTime",
            "xCurrentTimeInt64",
        ],
    ),
]
SQLITE_EDITS = [
    # Before any annotated declaration, after SQLite's own feature macros
    # (_GNU_SOURCE etc., defined at the top of the amalgamation).
    {
        "file": "sqlite3.c",
        "after": "#include <stdarg.h>     /* Needed for the definition of va_list */",
        "insert": INCLUDE,
    },
] + [{"file": "sqlite3.c", "struct": s, "field": f} for s, fs in SQLITE_FIELDS for f in fs]

# --- Expat ---------------------------------------------------------------------------
ENCODING_FIELDS = [
    "nameMatchesAscii",
    "nameLength",
    "skipS",
    "getAtts",
    "charRefNumber",
    "predefinedEntityName",
    "updatePosition",
    "isPublicId",
    "utf8Convert",
    "utf16Convert",
]
HANDLERS = [
    "startElement",
    "endElement",
    "characterData",
    "processingInstruction",
    "comment",
    "startCdataSection",
    "endCdataSection",
    "default",
    "startDoctypeDecl",
    "endDoctypeDecl",
    "unparsedEntityDecl",
    "notationDecl",
    "startNamespaceDecl",
    "endNamespaceDecl",
    "notStandalone",
    "externalEntityRef",
    "skippedEntity",
    "unknownEncoding",
    "elementDecl",
    "attlistDecl",
    "entityDecl",
    "xmlDecl",
]
EXPAT_EDITS = (
    [
        {"file": "lib/xmltok.h", "after": "#define XmlTok_INCLUDED 1", "insert": INCLUDE},
        {"file": "lib/expat.h", "after": '#include "expat_external.h"', "insert": INCLUDE},
    ]
    + [{"file": "lib/xmltok.h", "struct": "encoding", "field": f} for f in ENCODING_FIELDS]
    + [
        {"file": "lib/expat.h", "typedef": "XML_Memory_Handling_Suite", "field": f}
        for f in ("malloc_fcn", "realloc_fcn", "free_fcn")
    ]
    + [{"file": "lib/xmlparse.c", "struct": "XML_ParserStruct", "field": f"m_{h}Handler"} for h in HANDLERS]
    + [
        {"file": "lib/xmlparse.c", "struct": "XML_ParserStruct", "field": "m_processor"},
    ]
)
# Arrays of function pointers: only when the compiler accepts them (probe).
EXPAT_ARRAY_EDITS = [
    {"file": "lib/xmltok.h", "struct": "encoding", "field": "scanners"},
    {"file": "lib/xmltok.h", "struct": "encoding", "field": "literalScanners"},
]

PROBE = """#include <dyncall.h>
struct ops { int (*fn[2])(int) DYNCALL; };
int call(struct ops *o, int i) { return o->fn[i & 1](i); }
"""


class EditError(Exception):
    pass


def describe(e):
    where = e.get("struct") or e.get("typedef")
    return f"{where}.{e['field']}" if "field" in e else f"insert after {e['after']!r}"


def struct_body(text, e):
    """(start, end) of the body between the braces of the struct the edit names."""
    if "struct" in e:
        ms = list(
            re.finditer(r"^(?:typedef\s+)?struct\s+" + re.escape(e["struct"]) + r"\s*\{", text, re.MULTILINE)
        )
        if len(ms) != 1:
            raise EditError(f"struct {e['struct']} {{ matched {len(ms)} times")
        start = ms[0].end()
        depth, i = 1, start
        while depth:
            c = text[i]
            depth += c == "{"
            depth -= c == "}"
            i += 1
        return start, i - 1
    ms = list(re.finditer(r"\}\s*" + re.escape(e["typedef"]) + r"\s*;", text))
    if len(ms) != 1:
        raise EditError(f"}} {e['typedef']}; matched {len(ms)} times")
    end = ms[0].start()
    depth, i = 1, end - 1
    while depth:
        depth += text[i] == "}"
        depth -= text[i] == "{"
        i -= 1
    return i + 2, end


def apply_edit(text, e):
    if "after" in e:
        n = text.count(e["after"] + "\n")
        if n != 1:
            raise EditError(f"matched {n} times")
        if e["insert"] in text:
            raise EditError("already applied")
        return text.replace(e["after"] + "\n", e["after"] + "\n" + e["insert"] + "\n")
    start, end = struct_body(text, e)
    body = text[start:end]
    f = re.escape(e["field"])
    # A declarator naming the field: (*f) / (PTRCALL *f) / plain `f;` / `f[N];`.
    pat = re.compile(r"\(\s*(?:\w+\s+)?\*\s*" + f + r"\s*\)|\b" + f + r"\s*(?:\[[^\]]*\]\s*)?;")
    ms = list(pat.finditer(body))
    if len(ms) != 1:
        raise EditError(f"field matched {len(ms)} times in the struct")
    # The `;` that ends this declaration (outside parentheses).
    i, depth = ms[0].start(), 0
    while True:
        c = body[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == ";" and depth == 0:
            break
        i += 1
    if body[:i].rstrip().endswith("DYNCALL"):
        raise EditError("already annotated")
    body = body[:i].rstrip() + " DYNCALL" + body[i:]
    return text[:start] + body + text[end:]


def apply_all(files, edits, label):
    for e in edits:
        try:
            files[e["file"]] = apply_edit(files[e["file"]], e)
        except EditError as err:
            sys.exit(f"annotate: {label}/{e['file']}: {describe(e)}: {err}")


def write_if_changed(path, text):
    try:
        with open(path, encoding="latin-1") as f:
            if f.read() == text:
                return False
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", encoding="latin-1") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
    return True


def read(path):
    with open(path, encoding="latin-1") as f:
        return f.read()


def arrays_accepted(build, compiler):
    cc = os.path.join(build, "bin", "dyncall-cc")
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "probe.c")
        with open(src, "w") as f:
            f.write(PROBE)
        r = subprocess.run(
            [cc, compiler, "-O2", "-c", src, "-o", os.path.join(d, "probe.o")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        return r.returncode == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--build", default=os.environ.get("BUILD_DIR", os.path.join(root, "build")))
    ap.add_argument("--compiler", default="clang-19")
    ap.add_argument("--list", action="store_true", help="print the edits and exit")
    a = ap.parse_args()
    if a.list:
        for label, edits in (
            ("sqlite3", SQLITE_EDITS),
            ("expat", EXPAT_EDITS),
            ("expat (arrays, when accepted)", EXPAT_ARRAY_EDITS),
        ):
            for e in edits:
                print(f"{label}: {e['file']}: {describe(e)}")
        return
    rw = os.path.join(os.path.abspath(a.build), "realworld")
    out = os.path.join(rw, "annotated", a.compiler)

    # SQLite: the amalgamation, its header, speedtest1.c (copied as they are).
    amal = os.path.join(rw, "sqlite3-amalgamation")
    files = {"sqlite3.c": read(os.path.join(amal, "sqlite3.c"))}
    apply_all(files, SQLITE_EDITS, "sqlite3")
    files["sqlite3.h"] = read(os.path.join(amal, "sqlite3.h"))
    files["speedtest1.c"] = read(os.path.join(rw, "src", "sqlite3", "test", "speedtest1.c"))
    changed = sum(write_if_changed(os.path.join(out, "sqlite3", n), t) for n, t in files.items())

    # Expat: the whole tree copied, then the edits.
    esrc = os.path.join(rw, "src", "expat", "expat")
    edst = os.path.join(out, "expat")
    names = sorted({e["file"] for e in EXPAT_EDITS + EXPAT_ARRAY_EDITS})
    files = {n: read(os.path.join(esrc, n)) for n in names}
    arrays = arrays_accepted(a.build, a.compiler)
    apply_all(files, EXPAT_EDITS + (EXPAT_ARRAY_EDITS if arrays else []), "expat")
    if not os.path.isdir(edst):
        shutil.copytree(esrc, edst)
    for n, t in files.items():
        changed += write_if_changed(os.path.join(edst, n), t)
    nf = len(SQLITE_EDITS) + len(EXPAT_EDITS) + (len(EXPAT_ARRAY_EDITS) if arrays else 0)
    state = "applied" if arrays else f"not applied ({a.compiler} with dyncall-cc rejects an annotated array)"
    msg = f"annotate: {nf} edits, {changed} file(s) rewritten in {out}; array annotations {state}"
    if changed:
        print(msg)
    with open(os.path.join(out, "arrays"), "w") as f:
        f.write(("on" if arrays else "off") + "\n")


if __name__ == "__main__":
    main()
