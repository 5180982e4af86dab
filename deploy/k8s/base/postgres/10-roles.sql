-- Generated from deploy/k8s/src/postgres.ts by `pnpm --filter @platform/k8s gen`; edit it there.
-- The history store's roles and grants (deploy/k8s/README.md, "PostgreSQL"). Runs once, when the
-- primary initialises an empty data directory, as the superuser on the database platform.
\set ON_ERROR_STOP on
\if :{?secrets_dir}
\else
\set secrets_dir /var/run/secrets/platform
\endif
-- Each password from its Secret's file (key `password`), never from this file or an argument.
\set history_owner_password `cat :secrets_dir/postgres-history-owner/password`
\set projector_password `cat :secrets_dir/postgres-projector/password`
\set data_query_password `cat :secrets_dir/postgres-data-query/password`
\set replicator_password `cat :secrets_dir/postgres-replicator/password`
SELECT bool_or(length(password) < 16) AS weak_password FROM (VALUES (:'history_owner_password'), (:'projector_password'), (:'data_query_password'), (:'replicator_password')) AS passwords (password) \gset
\if :weak_password
\warn 'a role password is missing or shorter than 16 characters: create the Secrets first (README)'
SELECT 1 / 0 AS refused_weak_password;
\endif

CREATE ROLE history_owner LOGIN PASSWORD :'history_owner_password';
CREATE ROLE projector LOGIN PASSWORD :'projector_password';
CREATE ROLE data_query LOGIN PASSWORD :'data_query_password';
CREATE ROLE replicator LOGIN REPLICATION PASSWORD :'replicator_password';
\unset history_owner_password
\unset projector_password
\unset data_query_password
\unset replicator_password

-- Only the platform's roles connect to its database, and nobody creates objects in public.
REVOKE ALL ON DATABASE platform FROM PUBLIC;
GRANT CONNECT ON DATABASE platform TO history_owner, projector, data_query;
REVOKE ALL ON SCHEMA public FROM PUBLIC;

-- history_owner owns the schema: its migrations create, alter, partition and drop the tables.
CREATE SCHEMA history AUTHORIZATION history_owner;
-- Whatever history_owner creates there (tables, partitions, sequences, functions) is granted as it
-- is created: libs/history HISTORY_PRIVILEGES, the same statements the local stack runs.
grant usage on schema history to projector, data_query;
alter default privileges for role history_owner in schema history grant select, insert, update, delete on tables to projector;
alter default privileges for role history_owner in schema history grant usage on sequences to projector;
alter default privileges for role history_owner in schema history grant execute on functions to projector;
alter default privileges for role history_owner in schema history grant select on tables to data_query;

ALTER ROLE history_owner SET search_path = history;
ALTER ROLE projector SET search_path = history;
ALTER ROLE data_query SET search_path = history;
ALTER ROLE data_query SET default_transaction_read_only = on;
