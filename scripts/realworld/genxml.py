#!/usr/bin/env python3
"""Write a deterministic XML document of about SIZE_MB megabytes for the Expat
workloads of the real-world builds (tests/benchmark, xmlwf -d).

    genxml.py [--no-pi] OUT [SIZE_MB]     (default 4)

The document mixes what a parser meets in practice: nested elements with
attributes, namespaces, character data with character and entity references,
comments, CDATA sections and processing instructions. Same bytes on every run
(a fixed linear congruential generator, no random module state).
--no-pi leaves out the processing instructions inside the document (the same
document otherwise): TinyXML-2 9 reads any `<?...?>` as an XML declaration and
accepts one only at the start (XML_ERROR_PARSING_DECLARATION).
"""

import sys


def main():
    args = sys.argv[1:]
    no_pi = bool(args) and args[0] == "--no-pi"
    if no_pi:
        args = args[1:]
    if len(args) not in (1, 2):
        sys.exit("usage: genxml.py [--no-pi] OUT [SIZE_MB]")
    out = args[0]
    size = int(float(args[1] if len(args) == 2 else 4) * 1024 * 1024)
    seed = 12345

    def rnd(n):
        nonlocal seed
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        return (seed >> 8) % n

    words = [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "zeta",
        "eta",
        "theta",
        "iota",
        "kappa",
        "lambda",
        "mu",
        "nu",
        "xi",
        "omicron",
        "pi",
        "rho",
        "sigma",
        "tau",
        "upsilon",
        "phi",
        "chi",
        "psi",
        "omega",
    ]
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n',
        (
            '<!DOCTYPE catalog [\n  <!ENTITY co "Example Company &amp; Sons">\n'
            '  <!ENTITY note "entity text">\n]>\n'
        ),
        '<catalog xmlns="urn:example:catalog" xmlns:x="urn:example:extra">\n',
    ]
    total = sum(len(p) for p in parts)
    i = 0
    while total < size:
        i += 1
        w = [words[rnd(len(words))] for _ in range(12)]
        rec = [
            f'  <item id="i{i}" kind="{w[0]}" x:rank="{rnd(1000)}">\n',
            f'    <name lang="en">{w[1].title()} {w[2]} &amp; {w[3]}</name>\n',
            f'    <price currency="EUR">{rnd(10000) / 100:.2f}</price>\n',
            f"    <desc>{' '.join(w[4:10])} &lt;{w[10]}&gt; &#x{0x41 + rnd(26):X}; &co;</desc>\n",
        ]
        if i % 7 == 0:
            rec.append(f"    <!-- comment {i}: {w[11]} -->\n")
        if i % 11 == 0:
            rec.append(f"    <raw><![CDATA[{w[5]} < {w[6]} && {w[7]} > {w[8]}]]></raw>\n")
        if i % 13 == 0 and not no_pi:
            rec.append(f'    <?proc {w[9]}="{i}"?>\n')
        tags = "".join(f'<x:tag v="{t}"/>' for t in w[:4])
        rec.append(f"    <x:tags>{tags}</x:tags>\n")
        rec.append("  </item>\n")
        for p in rec:
            parts.append(p)
            total += len(p)
    parts.append("</catalog>\n")
    with open(out, "w", encoding="utf-8") as f:
        f.write("".join(parts))


if __name__ == "__main__":
    main()
