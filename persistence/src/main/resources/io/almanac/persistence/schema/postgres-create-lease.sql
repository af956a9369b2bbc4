-- Almanac's lease table (io.almanac.persistence.lease.JdbcLease) for PostgreSQL: one row per lease
-- name, in the journal's database and current schema (no "public.", as for the journal tables).
-- Times are the database's (CURRENT_TIMESTAMP): every node judges expiry by the one clock.
-- SchemaBootstrap runs it when the table is missing, in its transaction under its advisory lock.
CREATE TABLE IF NOT EXISTS almanac_lease (
  name VARCHAR(512) NOT NULL,
  owner VARCHAR(512),
  incarnation VARCHAR(64),
  version BIGINT NOT NULL,
  acquired_at TIMESTAMPTZ,
  heartbeat_at TIMESTAMPTZ,
  expires_at TIMESTAMPTZ,
  PRIMARY KEY(name)
);
