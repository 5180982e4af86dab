#!/usr/bin/env bash
# Installs what the stack and the tests need and skips what is already there:
# pnpm, the workspace's node packages (anvil and solc come with them), Redis, PostgreSQL, NATS and Prometheus
# (with promtool) and Chromium (the browser test) from Debian's packages, Maven if missing, the Kafka broker jars from Maven Central, and the
# schemathesis fuzzer from PyPI (in a virtual environment).
set -euo pipefail
cd "$(dirname "$0")/../.."
source deploy/local/lib.sh

PNPM_VERSION=10.34.9

node_ok=$(node -e 'const [a,b]=process.versions.node.split(".").map(Number); console.log(a>20||(a===20&&b>=19)?"yes":"no")' 2>/dev/null || echo no)
[ "$node_ok" = yes ] || fail "Node.js 20.19 or newer is required (found: $(node --version 2>/dev/null || echo none))"
command -v java >/dev/null || fail "Java 17 or newer is required for the Kafka broker (apt-get install openjdk-17-jdk-headless)"

if [ "$(pnpm --version 2>/dev/null || true)" != "$PNPM_VERSION" ]; then
  say "installing pnpm $PNPM_VERSION from the npm registry"
  npm install -g --silent "pnpm@$PNPM_VERSION" 2>/dev/null \
    || npm install -g --silent --prefix "$PLATFORM_CACHE_DIR/npm-global" "pnpm@$PNPM_VERSION"
  hash -r
fi

packages=()
command -v redis-server >/dev/null || packages+=(redis-server)
{ command -v nats-server >/dev/null || [ -x /usr/sbin/nats-server ]; } || packages+=(nats-server)
command -v mvn >/dev/null || packages+=(maven)
# deploy/local/kafka/CreateScramUsers.java runs from source: the JVM needs its compiler module (a JDK, not a JRE)
java --list-modules 2>/dev/null | grep -q '^jdk.compiler' || packages+=(openjdk-17-jdk-headless)
# PostgreSQL 15, the history store: the stack and the tests run their own servers (libs/testing startPostgres)
compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null || packages+=(postgresql)
# kubectl renders the Kubernetes overlays in the tests (kustomize is built in)
command -v kubectl >/dev/null || packages+=(kubernetes-client)
# Python with venv runs the schema-driven fuzz of /openapi.json (schemathesis, from PyPI)
# openssl makes the throwaway certificate of the gRPC TLS test
command -v openssl >/dev/null || packages+=(openssl)
command -v python3 >/dev/null || packages+=(python3)
# Prometheus and promtool: the alert rules' checks and unit tests, and the local stack's Prometheus (STACK_OBSERVABILITY=1)
command -v promtool >/dev/null || packages+=(prometheus)
python3 -c "import ensurepip, venv" >/dev/null 2>&1 || packages+=(python3-venv)
# Chromium (headless, driven by playwright-core) runs the browser e2e test: /docs, and the client on another origin
[ -x /usr/bin/chromium ] || packages+=(chromium)
if [ ${#packages[@]} -gt 0 ]; then
  say "installing Debian packages: ${packages[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
  # The package enables a system-wide Prometheus on :9090; the stack runs its own, so the one we just installed is stopped.
  # Debian's postgresql starts a system-wide cluster on :5432; the stack runs its own, so it is stopped too.
  if [[ " ${packages[*]} " == *" postgresql "* ]] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
    $SUDO systemctl disable --now postgresql >/dev/null 2>&1 || true
  fi
  if [[ " ${packages[*]} " == *" prometheus "* ]] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
    $SUDO systemctl disable --now prometheus >/dev/null 2>&1 || true
  fi
fi

say "installing node packages (pnpm install --frozen-lockfile)"
pnpm install --frozen-lockfile --reporter=append-only 2>&1 | grep -vE "^(Progress|Packages|\s*$)" | tail -n 15

bash deploy/local/kafka/install.sh

# The fuzz's virtual environment, named by its requirements so that a change makes a new one.
requirements=test/e2e/fuzz/requirements.txt
venv="$PLATFORM_CACHE_DIR/fuzz-venv-$(sha256sum "$requirements" | cut -c1-12)"
if [ ! -x "$venv/bin/schemathesis" ]; then
  say "installing schemathesis from PyPI into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
fi
