# A TAP suite, as libuv's runner prints it: the cases $TAP_CASES (default
# alpha beta gamma); $TAP_FAIL names the cases that fail in the whole run,
# $TAP_FAIL_ALONE those that fail when run alone (`tap.sh CASE`, exit
# status 0 or 1; each such run is logged to $TAP_RERUNS as "BUILD CASE",
# BUILD the last component of $TAP_BUILD). The whole run exits with the
# number of failed cases; TAP_NONE=1: it prints no case; TAP_CRASH=1: it
# kills itself (SIGSEGV) after printing its cases.
fails() { case " $1 " in *" $2 "*) return 0 ;; esac; return 1; }
if [ $# = 1 ]; then
  echo "${TAP_BUILD##*/} $1" >> "${TAP_RERUNS:-/dev/null}"
  fails "${TAP_FAIL_ALONE:-}" "$1" && exit 1
  exit 0
fi
[ "${TAP_NONE:-}" = 1 ] && { echo "no cases here"; exit 0; }
set -- ${TAP_CASES:-alpha beta gamma}
echo "1..$#"
n=0 bad=0
for c in "$@"; do
  n=$((n + 1))
  if fails "${TAP_FAIL:-}" "$c"; then echo "not ok $n - $c"; echo "# Assertion failed"; bad=$((bad + 1))
  else echo "ok $n - $c"; fi
done
[ "${TAP_CRASH:-}" = 1 ] && kill -SEGV $$
exit $bad
