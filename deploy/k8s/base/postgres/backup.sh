#!/bin/bash
# Generated from deploy/k8s/src/postgres.ts by `pnpm --filter @platform/k8s gen`; edit it there.
# postgres-backup: a base backup of the primary with pg_basebackup as replicator (PGPASSWORD from the
# Secret postgres-replicator), in tar format, gzip-compressed, with the WAL of its duration
# streamed into it (-X stream), so each backup restores on its own (README, "Restore"). Written to
# <dir>.partial and renamed when complete; then only the newest BACKUP_KEEP complete ones are kept.
set -euo pipefail
: "${BACKUP_DIR:?}" "${BACKUP_KEEP:?}" "${PRIMARY_HOST:?}" "${PRIMARY_PORT:?}"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
target="$BACKUP_DIR/base-$stamp"
# What a failed run left half-written is never a backup.
find "$BACKUP_DIR" -mindepth 1 -maxdepth 1 -name '*.partial' -exec rm -rf {} +
echo "backup: $PRIMARY_HOST:$PRIMARY_PORT into $target"
pg_basebackup --host="$PRIMARY_HOST" --port="$PRIMARY_PORT" --username=replicator --no-password \
  --pgdata="$target.partial" --format=tar --gzip --wal-method=stream --checkpoint=fast \
  --label="postgres-backup $stamp" --verbose
for file in base.tar.gz pg_wal.tar.gz backup_manifest; do
  [ -s "$target.partial/$file" ] || { echo "backup: $file is missing" >&2; exit 1; }
done
gzip --test "$target.partial"/*.tar.gz
mv "$target.partial" "$target"
echo "backup: $target complete ($(du -sh "$target" | cut -f1))"
mapfile -t complete < <(find "$BACKUP_DIR" -mindepth 1 -maxdepth 1 -type d -name 'base-*Z' | sort)
excess=$((${#complete[@]} - BACKUP_KEEP))
for ((i = 0; i < excess; i++)); do
  echo "backup: removing ${complete[i]} (keeping the newest $BACKUP_KEEP)"
  rm -rf "${complete[i]}"
done
