# Sourced (not run on its own): a private apt configuration under a build
# directory, so that fetching from Debian's archive never touches /etc/apt.
#
#   . scripts/private-apt.sh
#   private_apt DIR WRITER [OPTION...] < entries   # apt lines on stdin
#   apt-get "${aptopts[@]}" -q update
#
# Writes DIR/sources.list (the lines read, under a comment naming WRITER)
# and makes DIR/lists, DIR/cache; sets the array aptopts to the apt-get
# options that use them, plus any OPTION (e.g. APT::Architectures=...).
private_apt() {
  local dir=$1 writer=$2
  shift 2
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/sources.list.d"
  { echo "# written by $writer"; cat; } > "$dir/sources.list"
  aptopts=(
    -o "Dir::Etc::sourcelist=$dir/sources.list"
    -o "Dir::Etc::sourceparts=$dir/sources.list.d"
    -o "Dir::State::Lists=$dir/lists"
    -o "Dir::Cache=$dir/cache"
    -o "Dir::Cache::archives=$dir/cache/archives"
    -o "Debug::NoLocking=1"
    -o "APT::Sandbox::User=$(id -un)"
    -o "Acquire::Retries=2"
    -o "Acquire::http::Timeout=20"
  )
  local o
  for o in "$@"; do aptopts+=(-o "$o"); done
}
