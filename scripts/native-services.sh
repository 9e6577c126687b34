#!/bin/bash
# Installs the native services the scale-out and pgvector tests run on: PostgreSQL 15 (Debian bookworm) with the
# pgvector 0.8.0 extension built from Debian's own source package (packaged in trixie, builds cleanly against 15),
# and Debian's HAProxy.
#
#   scripts/native-services.sh                as root: apt-get install, pgvector built into /usr/lib/postgresql/15
#   scripts/native-services.sh --local DIR    any user: the packages unpacked under DIR (apt-get download +
#                                             dpkg-deb -x; PostgreSQL binaries are relocatable) and pgvector built
#                                             with that tree's pg_config into it. Default without root:
#                                             .cache/native/ in the checkout.
#
# Idempotent: returns at once when everything is there. Last line on success, for callers:
#   native-services pg_bin=<dir> haproxy=<file> ld_library_path=<dirs or empty>
# Exit code 3 with one line "native-services unavailable: <why>" when it cannot install here.
set -eu
unavailable() { echo "native-services unavailable: $*"; exit 3; }
checkout=$(cd "$(dirname "$0")/.." && pwd)
local_dir=""
if [ "${1:-}" = "--local" ]; then local_dir=$(mkdir -p "${2:?--local needs a directory}" && cd "$2" && pwd)
elif [ "$(id -u)" != 0 ]; then local_dir="$checkout/.cache/native"; mkdir -p "$local_dir"; fi
export DEBIAN_FRONTEND=noninteractive

# Downloads pgvector's Debian source package (trixie) into $1 and unpacks it; prints the source directory.
pgvector_source() {
  local w=$1
  mkdir -p "$w/lists/partial" "$w/cache/archives/partial"
  echo 'deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main' >"$w/sources.list"
  local a="-o Dir::Etc::sourcelist=$w/sources.list -o Dir::Etc::sourceparts=- -o Dir::State::Lists=$w/lists -o Dir::Cache=$w/cache -o Debug::NoLocking=1"
  apt-get $a update -qq >/dev/null 2>&1 || unavailable "apt-get update of Debian's trixie sources failed (no network to deb.debian.org?)"
  (cd "$w" && apt-get $a source --download-only pgvector >/dev/null 2>&1) || unavailable "apt-get source pgvector failed"
  tar -C "$w" -xzf "$w"/pgvector_*.orig.tar.gz
  echo "$w"/pgvector-*/
}

# Builds and installs pgvector with the given pg_config (no LLVM bitcode: clang is not needed).
build_pgvector() {
  command -v make >/dev/null && command -v gcc >/dev/null || unavailable "no C compiler (make, gcc) to build pgvector: install build-essential"
  local w src
  w=$(mktemp -d); chmod 755 "$w"
  src=$(pgvector_source "$w")
  make -C "$src" -j2 PG_CONFIG="$1" OPTFLAGS="" with_llvm=no >/dev/null
  make -C "$src" install PG_CONFIG="$1" with_llvm=no >/dev/null
  rm -rf "$w"
}

if [ -z "$local_dir" ]; then
  PG=/usr/lib/postgresql/15
  if ! dpkg -s postgresql-15 postgresql-server-dev-15 build-essential haproxy >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql-15 postgresql-server-dev-15 build-essential haproxy >/dev/null
  fi
  [ -f $PG/lib/vector.so ] && [ -f /usr/share/postgresql/15/extension/vector.control ] || build_pgvector $PG/bin/pg_config
  echo "native-services pg_bin=$PG/bin haproxy=/usr/sbin/haproxy ld_library_path="
  exit 0
fi

root="$local_dir/root"
PG="$root/usr/lib/postgresql/15"
libs="$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu"
libs=$(echo "$libs" | sed "s/x86_64-linux-gnu/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -dumpmachine)/g")
if [ ! -x "$PG/bin/postgres" ] || [ ! -x "$root/usr/sbin/haproxy" ]; then
  command -v apt-get >/dev/null || unavailable "not a Debian system (no apt-get)"
  debs=$(mktemp -d)
  # The packages themselves, and whatever of their run-time dependencies this system lacks. The development
  # package is taken alone: its dependencies (clang, LLVM) only serve JIT bitcode, which is not built.
  wanted="postgresql-15 postgresql-client-15 postgresql-server-dev-15 haproxy"
  deps=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces --no-enhances postgresql-15 haproxy 2>/dev/null | grep -v '^ ' | grep -v '^<' | sort -u) ||
    unavailable "apt-cache knows no postgresql-15 (run apt-get update as root once)"
  for p in $deps; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || wanted="$wanted $p"
  done
  (cd "$debs" && apt-get download $wanted >/dev/null 2>&1) || unavailable "apt-get download of $wanted failed (package lists missing or no network)"
  for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$root"; done
  rm -rf "$debs"
fi
if [ ! -f "$PG/lib/vector.so" ]; then
  LD_LIBRARY_PATH="$libs" build_pgvector "$PG/bin/pg_config"
fi
echo "native-services pg_bin=$PG/bin haproxy=$root/usr/sbin/haproxy ld_library_path=$libs"
