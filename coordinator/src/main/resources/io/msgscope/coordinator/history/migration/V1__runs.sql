-- The run store (issue 34 item 1): one row per recorded run, its key figures and its labels. Written in the SQL
-- that SQLite and PostgreSQL share; Flyway applies it to an empty store. Times are ISO-8601 text (UTC) and ms since
-- the epoch; an unknown figure is a NULL value, a figure the run's mode does not have is no row.
CREATE TABLE runs (
    run_key VARCHAR(36) NOT NULL PRIMARY KEY,
    recorded_at VARCHAR(40) NOT NULL,
    started_at VARCHAR(40),
    started_ms BIGINT,
    mode VARCHAR(32) NOT NULL,
    run_id VARCHAR(255),
    driver VARCHAR(64),
    status VARCHAR(32) NOT NULL,
    failure_reason TEXT,
    failed_during VARCHAR(64),
    tool_version VARCHAR(64),
    spec_hash VARCHAR(128),
    spec_json TEXT,
    environment_json TEXT,
    host VARCHAR(255),
    os VARCHAR(255),
    jvm VARCHAR(255),
    cpu_model VARCHAR(255),
    logical_cores INTEGER,
    broker VARCHAR(255),
    folder TEXT NOT NULL,
    hlog TEXT
);
CREATE INDEX runs_by_start ON runs (started_ms);
CREATE INDEX runs_by_spec_hash ON runs (spec_hash);
CREATE INDEX runs_by_driver ON runs (driver);

CREATE TABLE figures (
    run_key VARCHAR(36) NOT NULL REFERENCES runs (run_key) ON DELETE CASCADE,
    name VARCHAR(100) NOT NULL,
    value DOUBLE PRECISION,
    PRIMARY KEY (run_key, name)
);
CREATE INDEX figures_by_name ON figures (name, run_key);

CREATE TABLE labels (
    run_key VARCHAR(36) NOT NULL REFERENCES runs (run_key) ON DELETE CASCADE,
    name VARCHAR(100) NOT NULL,
    value VARCHAR(1000) NOT NULL,
    PRIMARY KEY (run_key, name)
);
CREATE INDEX labels_by_name ON labels (name, value);
