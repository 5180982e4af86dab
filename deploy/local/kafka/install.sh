#!/usr/bin/env bash
# Fetches the Kafka broker's runtime jars from Maven Central into a cache folder outside the
# repository, once. Idempotent: a marker file (holding the pom's checksum) skips the work when
# the jars for this exact pom are already there. Installs Maven with apt-get when it is missing.
#
#   deploy/local/kafka/install.sh            # prints the libs folder on its last line
#
# Environment: PLATFORM_CACHE_DIR (default ~/.cache/chain-intents-platform).
# Replacing the jars also drops the class-data-sharing archives (cds/) recorded for the old ones.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pom="$here/pom.xml"
say() { printf '[kafka-install] %s\n' "$*" >&2; }

version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$pom" | head -n1)"
if [[ -z "$version" ]]; then
  say "cannot read <kafka.version> from $pom"
  exit 1
fi
cache_dir="${PLATFORM_CACHE_DIR:-$HOME/.cache/chain-intents-platform}"
kafka_home="$cache_dir/kafka-$version"
libs="$kafka_home/libs"
marker="$kafka_home/.installed"
checksum="$(sha256sum "$pom" | cut -d' ' -f1)"

installed() { [[ -f "$marker" && "$(cat "$marker")" == "$checksum" && -f "$libs/kafka_2.13-$version.jar" ]]; }

if installed; then
  say "Kafka $version jars already in $libs (skipping)"
  echo "$libs"
  exit 0
fi

# Parallel test workers may all find the jars missing: one installs, the others wait for it.
mkdir -p "$kafka_home"
exec 9>"$kafka_home/.install.lock"
if command -v flock >/dev/null 2>&1; then
  flock 9
  if installed; then
    say "Kafka $version jars installed by a parallel run in $libs"
    echo "$libs"
    exit 0
  fi
fi

if ! command -v mvn >/dev/null 2>&1; then
  say "mvn not found: installing maven with apt-get"
  sudo_cmd=()
  if [[ "$(id -u)" != "0" ]]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq maven >/dev/null
fi
if ! command -v java >/dev/null 2>&1; then
  say "warning: java not found on PATH; the broker needs Java 17 or newer to run"
fi

say "fetching Kafka $version runtime jars from Maven Central into $libs"
# A fresh folder, so jars from an older pom never linger on the classpath.
staging="$kafka_home/libs.tmp.$$"
rm -rf "$staging"
mkdir -p "$staging"
trap 'rm -rf "$staging"' EXIT
mvn -B -q -f "$pom" \
  org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies \
  -DincludeScope=runtime -DoutputDirectory="$staging" -Dstyle.color=never 2>&1 \
  | sed -u 's/\x1b\[[0-9;]*m//g' >&2
rm -rf "$libs" "$kafka_home/cds"
mv "$staging" "$libs"
trap - EXIT
echo "$checksum" >"$marker"
say "installed $(find "$libs" -name '*.jar' | wc -l) jars ($(du -sh "$libs" | cut -f1)) in $libs"
echo "$libs"
