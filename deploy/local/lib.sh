# Shared by the stack and test entry points. Sourced, not run.
say() { printf '\033[1;34m==>\033[0m %s\n' "$*"; }
fail() { printf '\033[1;31mxx\033[0m %s\n' "$*" >&2; exit 1; }
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export PLATFORM_CACHE_DIR="${PLATFORM_CACHE_DIR:-$HOME/.cache/chain-intents-platform}"
# npm's global prefix may be unwritable for a normal user; pnpm then lives in our cache.
export PATH="$PLATFORM_CACHE_DIR/npm-global/bin:$PATH"
