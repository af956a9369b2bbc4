-- Almanac's instance table (io.almanac.persistence.instances) for PostgreSQL, in the journal's
-- database and current schema: one row per (task, window) kept from the task journals by
-- InstanceProjection, its history table (rows moved by retention), the projection's per-task
-- memory and its offset. SchemaBootstrap runs it when one of the tables is missing, in its
-- transaction under its advisory lock; every statement is IF NOT EXISTS. Columns added since the
-- first release (wait_until, event_count, event_duplicates, first_event_id, last_event_id, tokens_in,
-- tokens_out, cost, model, deadline_missed_at, pool_wait_pool, pool_wait_reason, pool_wait_until, reason_code) are added
-- to existing tables by SchemaBootstrap (ALTER TABLE ... ADD COLUMN IF NOT EXISTS).
CREATE TABLE IF NOT EXISTS almanac_instance (
    task_id VARCHAR(255) NOT NULL,
    window_key VARCHAR(255) NOT NULL,
    window_start TIMESTAMPTZ,
    window_end TIMESTAMPTZ,
    status VARCHAR(32) NOT NULL,
    attempt INTEGER NOT NULL,
    retry_count INTEGER NOT NULL,
    max_retry INTEGER NOT NULL,
    run_kind VARCHAR(32),
    result_summary VARCHAR,
    fail_reason VARCHAR,
    scheduled_at TIMESTAMPTZ,
    started_at TIMESTAMPTZ,
    finished_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    last_seq BIGINT NOT NULL,
    wait_until TIMESTAMPTZ,
    event_count BIGINT DEFAULT 0 NOT NULL,
    event_duplicates BIGINT DEFAULT 0 NOT NULL,
    first_event_id VARCHAR(255),
    last_event_id VARCHAR(255),
    tokens_in BIGINT DEFAULT 0 NOT NULL,
    tokens_out BIGINT DEFAULT 0 NOT NULL,
    cost DECIMAL(24,6),
    model VARCHAR(255),
    deadline_missed_at TIMESTAMPTZ,
    pool_wait_pool VARCHAR(255),
    pool_wait_reason VARCHAR(32),
    pool_wait_until TIMESTAMPTZ,
    reason_code VARCHAR(64),
    PRIMARY KEY(task_id, window_key)
);

-- The operator's queries: by status and time, by task and time, by task, status and time, by
-- time alone (each in the keyset order window_start, task_id, window_key), and retention's scan by
-- last change.
CREATE INDEX IF NOT EXISTS almanac_instance_status_idx ON almanac_instance(status, window_start, task_id, window_key);

CREATE INDEX IF NOT EXISTS almanac_instance_task_idx ON almanac_instance(task_id, window_start, window_key);

CREATE INDEX IF NOT EXISTS almanac_instance_task_status_idx ON almanac_instance(task_id, status, window_start, window_key);

CREATE INDEX IF NOT EXISTS almanac_instance_start_idx ON almanac_instance(window_start, task_id, window_key);

CREATE INDEX IF NOT EXISTS almanac_instance_updated_idx ON almanac_instance(updated_at);

-- The search by last change (GET /api/windows?by=updated), in its keyset order over a bounded range.
CREATE INDEX IF NOT EXISTS almanac_instance_updated_key_idx ON almanac_instance(updated_at, task_id, window_key);

-- Rows of terminal windows moved out of almanac_instance by retention; moved_at is when.
CREATE TABLE IF NOT EXISTS almanac_instance_history (
    task_id VARCHAR(255) NOT NULL,
    window_key VARCHAR(255) NOT NULL,
    window_start TIMESTAMPTZ,
    window_end TIMESTAMPTZ,
    status VARCHAR(32) NOT NULL,
    attempt INTEGER NOT NULL,
    retry_count INTEGER NOT NULL,
    max_retry INTEGER NOT NULL,
    run_kind VARCHAR(32),
    result_summary VARCHAR,
    fail_reason VARCHAR,
    scheduled_at TIMESTAMPTZ,
    started_at TIMESTAMPTZ,
    finished_at TIMESTAMPTZ,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    last_seq BIGINT NOT NULL,
    wait_until TIMESTAMPTZ,
    event_count BIGINT DEFAULT 0 NOT NULL,
    event_duplicates BIGINT DEFAULT 0 NOT NULL,
    first_event_id VARCHAR(255),
    last_event_id VARCHAR(255),
    tokens_in BIGINT DEFAULT 0 NOT NULL,
    tokens_out BIGINT DEFAULT 0 NOT NULL,
    cost DECIMAL(24,6),
    model VARCHAR(255),
    deadline_missed_at TIMESTAMPTZ,
    pool_wait_pool VARCHAR(255),
    pool_wait_reason VARCHAR(32),
    pool_wait_until TIMESTAMPTZ,
    reason_code VARCHAR(64),
    moved_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY(task_id, window_key)
);

CREATE INDEX IF NOT EXISTS almanac_instance_history_status_idx ON almanac_instance_history(status, window_start, task_id, window_key);

CREATE INDEX IF NOT EXISTS almanac_instance_history_task_idx ON almanac_instance_history(task_id, window_start, window_key);

CREATE INDEX IF NOT EXISTS almanac_instance_history_start_idx ON almanac_instance_history(window_start, task_id, window_key);

-- What the projection knows of each task between batches: its retry cap (from its latest
-- SpecDefined) and the sequence number of its last applied event.
CREATE TABLE IF NOT EXISTS almanac_instance_task (
    task_id VARCHAR(255) NOT NULL,
    max_retry INTEGER NOT NULL,
    last_seq BIGINT NOT NULL,
    PRIMARY KEY(task_id)
);

-- A projection's offset: the journal's ordering it has applied through, written in the same
-- transaction as the rows it applied.
CREATE TABLE IF NOT EXISTS almanac_projection_offset (
    projection_name VARCHAR(255) NOT NULL,
    current_offset BIGINT NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY(projection_name)
);
