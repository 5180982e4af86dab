#!/bin/bash
# Generated from deploy/k8s/src/postgres.ts by `pnpm --filter @platform/k8s gen`; edit it there.
set -euo pipefail
: "${BACKUP_DIR:?}" "${PGDATA:?}"
name="${BACKUP:-latest}"
if [ "$name" = latest ]; then
  backup="$(find "$BACKUP_DIR" -mindepth 1 -maxdepth 1 -type d -name 'base-*Z' | sort | tail -n 1)"
else
  backup="$BACKUP_DIR/$name"
fi
if [ -z "$backup" ] || [ ! -s "$backup/base.tar.gz" ] || [ ! -s "$backup/pg_wal.tar.gz" ]; then
  echo "restore: no complete backup named '$name' in $BACKUP_DIR" >&2
  exit 1
fi
if [ -e "$PGDATA" ]; then
  aside="$PGDATA.before-restore-$(date -u +%Y%m%dT%H%M%SZ)"
  echo "restore: moving the current data directory aside to $aside (delete it once the restore is checked)"
  mv "$PGDATA" "$aside"
fi
rm -rf "$PGDATA.partial"
mkdir -m 0700 "$PGDATA.partial"
tar -xzf "$backup/base.tar.gz" -C "$PGDATA.partial"
mkdir -p -m 0700 "$PGDATA.partial/pg_wal"
tar -xzf "$backup/pg_wal.tar.gz" -C "$PGDATA.partial/pg_wal"
rm -f "$PGDATA.partial/standby.signal" "$PGDATA.partial/recovery.signal"
mv "$PGDATA.partial" "$PGDATA"
echo "restore: $backup is in $PGDATA; start the primary (it replays the backup's WAL at start)"
