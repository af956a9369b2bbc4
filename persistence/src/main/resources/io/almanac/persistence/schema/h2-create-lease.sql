-- Almanac's lease table (io.almanac.persistence.lease.JdbcLease) for H2: one row per lease name,
-- in the journal's database. Times are the database's (CURRENT_TIMESTAMP): every node judges
-- expiry by the one clock. SchemaBootstrap runs it when the table is missing.
CREATE TABLE IF NOT EXISTS PUBLIC."almanac_lease" (
    "name" VARCHAR(512) NOT NULL,
    "owner" VARCHAR(512),
    "incarnation" VARCHAR(64),
    "version" BIGINT NOT NULL,
    "acquired_at" TIMESTAMP WITH TIME ZONE,
    "heartbeat_at" TIMESTAMP WITH TIME ZONE,
    "expires_at" TIMESTAMP WITH TIME ZONE,
    PRIMARY KEY("name")
    );
