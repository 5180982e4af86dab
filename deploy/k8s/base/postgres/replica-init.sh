#!/bin/bash
# Generated from deploy/k8s/src/postgres.ts by `pnpm --filter @platform/k8s gen`; edit it there.
# Init container of postgres-replica: clones the primary into an empty data directory with
# pg_basebackup as replicator (PGPASSWORD from the Secret postgres-replicator) and marks it a
# standby. A data directory that holds a cluster already is left as it is: the standby resumes.
set -euo pipefail
: "${PGDATA:?}" "${PRIMARY_HOST:?}" "${PRIMARY_PORT:?}"
if [ -s "$PGDATA/PG_VERSION" ]; then
  echo "replica-init: $PGDATA holds a cluster already; it starts as it is"
  exit 0
fi
if [ -d "$PGDATA" ]; then
  # An empty directory is fine; anything else is not ours to delete.
  rmdir "$PGDATA" || { echo "replica-init: $PGDATA is not empty and holds no cluster; refusing" >&2; exit 1; }
fi
partial="$PGDATA.partial"
rm -rf "$partial"
echo "replica-init: cloning $PRIMARY_HOST:$PRIMARY_PORT into $PGDATA"
pg_basebackup --host="$PRIMARY_HOST" --port="$PRIMARY_PORT" --username=replicator --no-password \
  --pgdata="$partial" --wal-method=stream --checkpoint=fast --verbose
touch "$partial/standby.signal"
mv "$partial" "$PGDATA"
echo "replica-init: done"
