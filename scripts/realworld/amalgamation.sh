#!/usr/bin/env bash
# The SQLite amalgamation (sqlite3.c, sqlite3.h), generated once from the
# unmodified tree of fetch.sh with its own `configure --disable-tcl && make
# sqlite3.c` (needs tclsh) into build/realworld/sqlite3-amalgamation/.
# Used by build.sh and bench/compile_time_sqlite.py. Exit 3: no sources.
# Environment: BUILD_DIR (default build).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
amal=$rw/sqlite3-amalgamation
[ -f "$amal/sqlite3.c" ] && exit 0
"$here/fetch.sh" || exit $?
# Several builds (lit runs the realworld tests in parallel) may ask at once:
# one generates under the lock, the others wait and find it done; sqlite3.h
# is published before sqlite3.c, which is renamed into place last.
mkdir -p "$rw"
exec 9>"$amal.lock"
flock 9
[ -f "$amal/sqlite3.c" ] && exit 0
echo "realworld: generating the SQLite amalgamation (configure && make sqlite3.c)"
rm -rf "$amal"; mkdir -p "$amal/tree"
(cd "$amal/tree" && "$rw/src/sqlite3/configure" --disable-tcl > ../configure.log 2>&1 \
   && make sqlite3.c > ../make.log 2>&1) \
  || { echo "realworld: generating sqlite3.c failed; see $amal/*.log" >&2; exit 1; }
cp "$amal/tree/sqlite3.h" "$amal/"
cp "$amal/tree/sqlite3.c" "$amal/sqlite3.c.tmp" && mv "$amal/sqlite3.c.tmp" "$amal/sqlite3.c"
