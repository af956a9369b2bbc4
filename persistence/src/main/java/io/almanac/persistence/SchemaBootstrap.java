package io.almanac.persistence;

import com.typesafe.config.Config;
import io.almanac.AlmanacException;
import io.almanac.InvalidSpecException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.persistence.jdbc.db.SlickDatabase;
import org.apache.pekko.persistence.jdbc.db.SlickExtension;
import org.apache.pekko.persistence.jdbc.db.SlickExtensionImpl;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import slick.jdbc.H2Profile;
import slick.jdbc.JdbcProfile;
import slick.jdbc.PostgresProfile;

/**
 * Creates the journal and snapshot tables of pekko-persistence-jdbc when they are missing, in the
 * database the {@code jdbc-journal} and {@code jdbc-snapshot-store} plugins are configured with
 * (for example by {@code almanac-h2.conf} or {@code almanac-postgres.conf}), and Almanac's lease
 * table ({@code almanac_lease}, of {@code io.almanac.persistence.lease.JdbcLease}) and instance
 * tables ({@code almanac_instance}, {@code almanac_instance_history}, {@code almanac_instance_task},
 * {@code almanac_projection_offset}, of {@code io.almanac.persistence.instances}) in the journal's
 * database. Safe to call at every
 * start, also from several nodes on one PostgreSQL at once: every statement is {@code IF NOT
 * EXISTS}, and on PostgreSQL the checks and statements run in one transaction under an advisory
 * lock. On PostgreSQL the tables go to the connection's current schema; when
 * {@code almanac.persistence.postgres.schema} is set, that schema is created first if it is
 * missing, and the bootstrap fails if the connections do not use it. Afterwards it checks that the
 * configured tables exist and fails naming any that does not. With
 * {@code almanac.persistence.schema.auto-create = off} it only checks. Logs once what it did.
 *
 * <p>On an embedded H2 file it also keeps the file near the size of its data ({@link H2Compaction},
 * {@code almanac.persistence.h2.compaction}; with the {@code WRITE_DELAY=0} of almanac-h2.conf H2
 * never compacts an open file): first, if nothing has opened the file yet and it is over the
 * bounds, H2 compacts it offline; then, once per ActorSystem, the node's looks at the open file start.
 *
 * <p>Unlike pekko-persistence-jdbc's test helper {@code SchemaUtils.createIfNotExists}, a failing
 * statement fails the bootstrap instead of being logged at DEBUG and ignored.
 */
public final class SchemaBootstrap {

  private static final Logger log = LoggerFactory.getLogger(SchemaBootstrap.class);

  /** PostgreSQL advisory lock key held while creating the schema: "almanac" in ASCII. */
  static final long POSTGRES_LOCK_KEY = 0x616c6d616e6163L;

  private SchemaBootstrap() {}

  /** The SQL dialects the bootstrap has a script for. */
  enum Dialect {
    H2("H2", "h2-create-schema.sql", "h2-create-lease.sql", "h2-create-instances.sql"),
    POSTGRES("PostgreSQL", "postgres-create-schema.sql", "postgres-create-lease.sql", "postgres-create-instances.sql");

    final String label;
    final String script;
    /** Almanac's own lease table, apart from the plugin's tables (whose script mirrors the plugin's). */
    final String leaseScript;
    /** Almanac's instance tables (io.almanac.persistence.instances), apart from the others. */
    final String instanceScript;

    Dialect(String label, String script, String leaseScript, String instanceScript) {
      this.label = label;
      this.script = script;
      this.leaseScript = leaseScript;
      this.instanceScript = instanceScript;
    }

    static Dialect of(JdbcProfile profile, String key) {
      if (profile instanceof H2Profile) {
        return H2;
      }
      if (profile instanceof PostgresProfile) {
        return POSTGRES;
      }
      throw new InvalidSpecException(key, profile, "Almanac's schema bootstrap supports H2 and PostgreSQL only; "
          + "create the tables yourself and set almanac.persistence.schema.auto-create = off");
    }

    /** @return the statements of this dialect's script for the plugin's tables, in order */
    List<String> statements() {
      return read(script);
    }

    /** @return the statements of this dialect's script for the lease table, in order */
    List<String> leaseStatements() {
      return read(leaseScript);
    }

    /** @return the statements of this dialect's script for the instance tables, in order */
    List<String> instanceStatements() {
      return read(instanceScript);
    }

    private static List<String> read(String script) {
      String resource = "schema/" + script;
      try (InputStream in = SchemaBootstrap.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException("missing resource io/almanac/persistence/" + resource);
        }
        return split(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new IllegalStateException("cannot read io/almanac/persistence/" + resource, e);
      }
    }
  }

  /** A table a plugin is configured with; an empty schema means the connection's default schema. */
  record Table(String configKey, String schema, String name) {
    Table inSchemaOf(Connection c) throws SQLException {
      return schema.isEmpty() ? new Table(configKey, c.getSchema(), name) : this;
    }

    String qualified() {
      return schema == null || schema.isEmpty() ? name : schema + "." + name;
    }
  }

  /**
   * The table of {@code io.almanac.persistence.lease.JdbcLease}, in the journal's database (the
   * connection's default schema). Its name is fixed.
   */
  static final String LEASE_TABLE = "almanac_lease";

  private static boolean isLease(Table t) {
    return t.configKey().equals(LEASE_TABLE_KEY);
  }

  /**
   * The tables of {@code io.almanac.persistence.instances} (the instance table, its history, the
   * projection's per-task memory and its offset), in the journal's database (the connection's
   * default schema). Their names are fixed.
   */
  static final List<String> INSTANCE_TABLES = List.of(
      "almanac_instance", "almanac_instance_history", "almanac_instance_task", "almanac_projection_offset");

  /** What an error message names the instance tables by, in place of a configuration key. */
  private static final String INSTANCE_TABLE_KEY = "Almanac's instance tables";

  private static boolean isInstance(Table t) {
    return t.configKey().equals(INSTANCE_TABLE_KEY);
  }

  /** What an error message names the lease table by, in place of a configuration key. */
  private static final String LEASE_TABLE_KEY = "Almanac's lease table";

  /**
   * Serialises H2 bootstraps: H2's IF NOT EXISTS is not atomic (two concurrent CREATE INDEX IF NOT
   * EXISTS fail with "object already exists"), and an embedded H2 file is open in one JVM only.
   */
  private static final Object H2_LOCK = new Object();

  /**
   * Ensures the tables exist, on Pekko's blocking dispatcher.
   *
   * @param system the actor system whose configuration names the database
   * @return completes when the tables exist; fails with an {@link InvalidSpecException} for a wrong
   *     setting, or an {@link AlmanacException} naming what could not be created or is missing
   */
  public static CompletionStage<Done> ensureSchema(ActorSystem<?> system) {
    Objects.requireNonNull(system, "system");
    final PersistenceSettings settings;
    try {
      settings = PersistenceSettings.from(system.settings().config());
    } catch (InvalidSpecException e) {
      return CompletableFuture.failedFuture(e);
    }
    Executor blocking = system.dispatchers().lookup(DispatcherSelector.blocking());
    return CompletableFuture.supplyAsync(() -> run(system, settings), blocking);
  }

  /**
   * Ensures the tables exist and waits for it: for mains, before they start the scheduler.
   *
   * @param system the actor system whose configuration names the database
   * @param timeout how long to wait
   * @throws InvalidSpecException for a wrong setting, naming its key
   * @throws AlmanacException when the tables could not be created or checked within the timeout
   */
  public static void ensureSchemaBlocking(ActorSystem<?> system, Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new InvalidSpecException("timeout", timeout, "must be > 0");
    }
    try {
      ensureSchema(system).toCompletableFuture().get(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AlmanacException("interrupted while waiting for the schema bootstrap", e);
    } catch (TimeoutException e) {
      logStuckThreads();
      throw new AlmanacException("schema bootstrap did not finish within " + timeout, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() instanceof CompletionException && e.getCause().getCause() != null
          ? e.getCause().getCause() : e.getCause();
      if (cause instanceof AlmanacException ae) {
        throw ae;
      }
      throw new AlmanacException("schema bootstrap failed: " + cause, cause);
    }
  }

  /**
   * A bootstrap that did not finish: where its threads (and the database driver's) wait, logged once,
   * so that the operator (or a test's log) sees what it waited for.
   */
  private static void logStuckThreads() {
    StringBuilder b = new StringBuilder("schema bootstrap timed out; the threads of the bootstrap and the database:");
    for (Map.Entry<Thread, StackTraceElement[]> t : Thread.getAllStackTraces().entrySet()) {
      StackTraceElement[] stack = t.getValue();
      boolean relevant = false;
      for (StackTraceElement f : stack) {
        String c = f.getClassName();
        if (c.startsWith("org.h2.") || c.startsWith("org.postgresql.") || c.startsWith("com.zaxxer.hikari.")
            || c.startsWith("io.almanac.persistence.")) {
          relevant = true;
          break;
        }
      }
      if (relevant) {
        b.append("\n\"").append(t.getKey().getName()).append("\" ").append(t.getKey().getState());
        for (int i = 0; i < Math.min(stack.length, 40); i++) {
          b.append("\n    at ").append(stack[i]);
        }
      }
    }
    log.error(b.toString());
  }

  private static Done run(ActorSystem<?> system, PersistenceSettings settings) {
    Config config = system.settings().config();
    String journalUrl = journalUrl(config);
    if (journalUrl.startsWith("jdbc:h2:")) {
      synchronized (H2_LOCK) {
        // Before the journal's pool opens the file (if nothing in this JVM has opened it yet).
        H2Compaction.beforeOpen(journalUrl, settings);
      }
    }
    SlickExtensionImpl slick = (SlickExtensionImpl) SlickExtension.get(system);
    // With use-shared-db (as in almanac-h2.conf) both plugins return the same database and pool.
    SlickDatabase journalDb = slick.database(config.getConfig("jdbc-journal"));
    SlickDatabase snapshotDb = slick.database(config.getConfig("jdbc-snapshot-store"));
    List<Table> journalTables = List.of(
        table(config, "jdbc-journal", "event_journal"),
        table(config, "jdbc-journal", "event_tag"));
    List<Table> snapshotTables = List.of(table(config, "jdbc-snapshot-store", "snapshot"));
    Table leaseTable = new Table(LEASE_TABLE_KEY, "", LEASE_TABLE);
    List<Table> instanceTables = INSTANCE_TABLES.stream().map(n -> new Table(INSTANCE_TABLE_KEY, "", n)).toList();
    try {
      if (journalDb == snapshotDb) {
        List<Table> all = new ArrayList<>(journalTables);
        all.addAll(snapshotTables);
        all.add(leaseTable);
        all.addAll(instanceTables);
        ensure(journalDb, profileKey(config, "jdbc-journal"), all, settings);
      } else {
        List<Table> journalAndLease = new ArrayList<>(journalTables);
        journalAndLease.add(leaseTable);
        journalAndLease.addAll(instanceTables);
        ensure(journalDb, profileKey(config, "jdbc-journal"), journalAndLease, settings);
        ensure(snapshotDb, profileKey(config, "jdbc-snapshot-store"), snapshotTables, settings);
      }
      if (Dialect.of(journalDb.profile(), profileKey(config, "jdbc-journal")) == Dialect.H2) {
        // With WRITE_DELAY=0 H2 never compacts the open file: the node does (almanac.persistence.h2.compaction).
        H2Compaction.start(system, settings);
      }
    } finally {
      // A plugin without use-shared-db gets a pool of its own per lookup: this one was only ours.
      closeIfOwned(journalDb);
      if (snapshotDb != journalDb) {
        closeIfOwned(snapshotDb);
      }
    }
    return Done.getInstance();
  }

  /** The JDBC URL of the journal's database (its shared one, or its own), or "" when it has none configured. */
  private static String journalUrl(Config config) {
    String shared = config.hasPath("jdbc-journal.use-shared-db") ? config.getString("jdbc-journal.use-shared-db") : "";
    String path = (shared.isEmpty() ? "jdbc-journal.slick" : "pekko-persistence-jdbc.shared-databases." + shared) + ".db.url";
    return config.hasPath(path) ? config.getString(path) : "";
  }

  /** The key that names a plugin's Slick profile: its own, or its shared database's. */
  private static String profileKey(Config config, String pluginKey) {
    String shared = config.hasPath(pluginKey + ".use-shared-db") ? config.getString(pluginKey + ".use-shared-db") : "";
    return shared.isEmpty() ? pluginKey + ".slick.profile" : "pekko-persistence-jdbc.shared-databases." + shared + ".profile";
  }

  private static Table table(Config config, String pluginKey, String table) {
    String path = pluginKey + ".tables." + table;
    return new Table(path + ".tableName", config.getString(path + ".schemaName"), config.getString(path + ".tableName"));
  }

  private static void closeIfOwned(SlickDatabase db) {
    if (db.allowShutdown()) {
      db.database().close();
    }
  }

  private static void ensure(SlickDatabase db, String profileKey, List<Table> configured, PersistenceSettings settings) {
    Dialect dialect = Dialect.of(db.profile(), profileKey);
    if (dialect == Dialect.H2) {
      synchronized (H2_LOCK) {
        ensure(db, dialect, configured, settings);
      }
    } else {
      ensure(db, dialect, configured, settings);
    }
  }

  private static void ensure(SlickDatabase db, Dialect dialect, List<Table> configured, PersistenceSettings settings) {
    String url = "?";
    try (Connection c = db.database().source().createConnection()) {
      url = redact(c.getMetaData().getURL());
      if (dialect == Dialect.H2) {
        warnIfNotDurable(c, url);
        ensureTables(c, dialect, configured, settings, url, "");
      } else {
        ensurePostgres(c, configured, settings, url);
      }
    } catch (SQLException e) {
      throw new AlmanacException("schema bootstrap of " + url + " failed: " + e.getMessage(), e);
    }
  }

  /**
   * PostgreSQL: everything in one transaction under an advisory lock, so that of nodes starting
   * together one creates and the others, once it has committed, find the tables. The lock is taken
   * before the first check, so a node that waited sees what the first one created.
   */
  private static void ensurePostgres(Connection c, List<Table> configured, PersistenceSettings settings, String url)
      throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    try {
      String created = "";
      if (settings.autoCreateSchema()) {
        try (Statement s = c.createStatement()) {
          // Ends with the transaction; one key for every schema, the wait is short.
          s.execute("SELECT pg_advisory_xact_lock(" + POSTGRES_LOCK_KEY + ")");
        }
        if (settings.postgres().schema().isPresent()) {
          created = ensurePostgresSchema(c, settings.postgres().schema().get()) ? settings.postgres().schema().get() : "";
        }
      }
      String current = c.getSchema();
      String wanted = settings.postgres().schema().orElse(null);
      if (current == null) {
        throw new AlmanacException("schema bootstrap of " + url + ": the connection has no current schema (search_path '"
            + searchPath(c) + "' names none that exists" + (wanted == null ? "" : "; almanac.persistence.postgres.schema is '"
            + wanted + "'") + "): create the schema" + (settings.autoCreateSchema() ? " or set almanac.persistence.postgres.schema"
            : " or turn almanac.persistence.schema.auto-create on"));
      }
      if (wanted != null && !wanted.equals(current)) {
        throw new AlmanacException("schema bootstrap of " + url + ": almanac.persistence.postgres.schema is '" + wanted
            + "' but the connection's current schema is '" + current + "' (search_path '" + searchPath(c)
            + "'): include \"almanac-postgres.conf\", which passes the key to pgJDBC as currentSchema, or set currentSchema yourself");
      }
      ensureTables(c, Dialect.POSTGRES, configured, settings, url, created);
      c.commit();
    } catch (SQLException | RuntimeException e) {
      try {
        c.rollback();
      } catch (SQLException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    } finally {
      c.setAutoCommit(autoCommit);
    }
  }

  /**
   * Creates the schema when it is missing. Checks first: PostgreSQL checks the CREATE privilege on
   * the database before IF NOT EXISTS, so an existing schema must not be created again.
   *
   * @return whether it was created
   */
  private static boolean ensurePostgresSchema(Connection c, String schema) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = ?")) {
      p.setString(1, schema);
      try (ResultSet rs = p.executeQuery()) {
        if (rs.next()) {
          return false;
        }
      }
    }
    try (Statement s = c.createStatement()) {
      // The name is a validated lower-case identifier (PersistenceSettings.Postgres).
      s.execute("CREATE SCHEMA IF NOT EXISTS " + schema);
    } catch (SQLException e) {
      throw new SQLException(e.getMessage() + " in: CREATE SCHEMA IF NOT EXISTS " + schema
          + " (almanac.persistence.postgres.schema)", e.getSQLState(), e);
    }
    return true;
  }

  private static String searchPath(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW search_path")) {
      return rs.next() ? rs.getString(1) : "?";
    }
  }

  private static void ensureTables(Connection c, Dialect dialect, List<Table> configured, PersistenceSettings settings,
      String url, String createdSchema) throws SQLException {
    List<Table> tables = new ArrayList<>();
    for (Table t : configured) {
      tables.add(t.inSchemaOf(c));
    }
    Map<Table, Boolean> before = existing(c, tables);
    List<String> missing = names(before, false);
    if (!missing.isEmpty() && settings.autoCreateSchema()) {
      if (before.entrySet().stream().anyMatch(e -> !e.getValue() && !isLease(e.getKey()) && !isInstance(e.getKey()))) {
        apply(c, dialect, dialect.statements());
      }
      if (before.entrySet().stream().anyMatch(e -> !e.getValue() && isLease(e.getKey()))) {
        apply(c, dialect, dialect.leaseStatements());
      }
      if (before.entrySet().stream().anyMatch(e -> !e.getValue() && isInstance(e.getKey()))) {
        apply(c, dialect, dialect.instanceStatements());
      }
    }
    Map<Table, Boolean> after = existing(c, tables);
    if (after.containsValue(false)) {
      StringBuilder which = new StringBuilder();
      for (Map.Entry<Table, Boolean> e : after.entrySet()) {
        if (!e.getValue()) {
          which.append(which.length() == 0 ? "" : ", ").append(e.getKey().qualified()).append(" (").append(e.getKey().configKey()).append(')');
        }
      }
      throw new AlmanacException(settings.autoCreateSchema()
          ? "schema bootstrap of " + url + ": missing " + which + " after creating the default tables; it creates "
              + "the default table names only: create renamed tables yourself and set almanac.persistence.schema.auto-create = off"
          : "schema of " + url + ": missing " + which + "; almanac.persistence.schema.auto-create is off: create them "
              + "with pekko-persistence-jdbc's " + dialect.label + " script (the lease table with almanac-persistence's "
              + "io/almanac/persistence/schema/" + dialect.leaseScript + ", the instance tables with "
              + dialect.instanceScript + "), or turn auto-create on");
    }
    addInstanceColumns(c, dialect, tables, settings, url);
    String schemaNote = createdSchema.isEmpty() ? "" : "; created schema " + createdSchema;
    if (missing.isEmpty()) {
      log.info("Almanac schema: tables {} present in {} ({}); nothing to create{}", names(after, true), url, dialect.label, schemaNote);
    } else {
      List<String> present = names(before, true);
      log.info("Almanac schema: created tables {} in {} ({}){}{}",
          missing, url, dialect.label, present.isEmpty() ? "" : "; " + present + " already present", schemaNote);
    }
  }

  /**
   * Columns of the instance table and its history added after their first release, with their
   * types on H2 and PostgreSQL, in order: a database created before them gets them at bootstrap.
   */
  static final List<String[]> INSTANCE_COLUMNS_ADDED = List.of(
      new String[] {"wait_until", "TIMESTAMP(9) WITH TIME ZONE", "TIMESTAMPTZ"},
      new String[] {"event_count", "BIGINT DEFAULT 0 NOT NULL", "BIGINT DEFAULT 0 NOT NULL"},
      new String[] {"event_duplicates", "BIGINT DEFAULT 0 NOT NULL", "BIGINT DEFAULT 0 NOT NULL"},
      new String[] {"first_event_id", "VARCHAR(255)", "VARCHAR(255)"},
      new String[] {"last_event_id", "VARCHAR(255)", "VARCHAR(255)"},
      // usage reported by the window's attempts (docs/budgets.md)
      new String[] {"tokens_in", "BIGINT DEFAULT 0 NOT NULL", "BIGINT DEFAULT 0 NOT NULL"},
      new String[] {"tokens_out", "BIGINT DEFAULT 0 NOT NULL", "BIGINT DEFAULT 0 NOT NULL"},
      new String[] {"cost", "DECIMAL(24,6)", "NUMERIC(24,6)"},
      new String[] {"model", "VARCHAR(255)", "VARCHAR(255)"},
      // a missed deadline and a wait for a resource pool (docs/deadlines.md, docs/pools.md)
      new String[] {"deadline_missed_at", "TIMESTAMP(9) WITH TIME ZONE", "TIMESTAMPTZ"},
      new String[] {"pool_wait_pool", "VARCHAR(255)", "VARCHAR(255)"},
      new String[] {"pool_wait_reason", "VARCHAR(32)", "VARCHAR(32)"},
      new String[] {"pool_wait_until", "TIMESTAMP(9) WITH TIME ZONE", "TIMESTAMPTZ"},
      // the typed cause of a SKIPPED or MISSED window (a SkipReason's or MissReason's name, io.almanac.ReasonCode)
      new String[] {"reason_code", "VARCHAR(64)", "VARCHAR(64)"});

  /**
   * Adds the {@link #INSTANCE_COLUMNS_ADDED} an existing instance table or history lacks ({@code
   * ALTER TABLE ... ADD COLUMN IF NOT EXISTS}); with auto-create off, a missing column is an error
   * naming it. The columns are looked up first, so a database that has them takes no table lock.
   */
  private static void addInstanceColumns(Connection c, Dialect dialect, List<Table> tables, PersistenceSettings settings,
      String url) throws SQLException {
    List<String> alters = new ArrayList<>();
    List<String> lacking = new ArrayList<>();
    for (Table t : tables) {
      if (!isInstance(t) || !(t.name().equals("almanac_instance") || t.name().equals("almanac_instance_history"))) {
        continue;
      }
      java.util.Set<String> have = columns(c, t);
      for (String[] col : INSTANCE_COLUMNS_ADDED) {
        if (!have.contains(col[0])) {
          lacking.add(t.qualified() + "." + col[0]);
          alters.add("ALTER TABLE " + t.name() + " ADD COLUMN IF NOT EXISTS " + col[0] + " "
              + (dialect == Dialect.H2 ? col[1] : col[2]));
        }
      }
    }
    if (alters.isEmpty()) {
      return;
    }
    if (!settings.autoCreateSchema()) {
      throw new AlmanacException("schema of " + url + ": missing columns " + lacking + " of Almanac's instance tables; "
          + "almanac.persistence.schema.auto-create is off: add them as " + dialect.instanceScript
          + " defines them, or turn auto-create on");
    }
    apply(c, dialect, alters);
    log.info("Almanac schema: added columns {} in {} ({})", lacking, url, dialect.label);
  }

  private static java.util.Set<String> columns(Connection c, Table t) throws SQLException {
    DatabaseMetaData md = c.getMetaData();
    String escape = md.getSearchStringEscape();
    java.util.Set<String> out = new java.util.HashSet<>();
    try (ResultSet rs = md.getColumns(null, pattern(t.schema(), escape), pattern(t.name(), escape), null)) {
      while (rs.next()) {
        out.add(rs.getString("COLUMN_NAME").toLowerCase(java.util.Locale.ROOT));
      }
    }
    return out;
  }

  /** Runs one of the dialect's scripts on c; on PostgreSQL inside the caller's transaction. */
  private static void apply(Connection c, Dialect dialect, List<String> statements) throws SQLException {
    boolean h2 = dialect == Dialect.H2;
    boolean autoCommit = c.getAutoCommit();
    if (h2) {
      c.setAutoCommit(true);
    }
    try (Statement s = c.createStatement()) {
      for (String sql : statements) {
        try {
          s.execute(sql);
        } catch (SQLException e) {
          throw new SQLException(e.getMessage() + " in: " + firstLine(sql), e.getSQLState(), e);
        }
      }
    } finally {
      if (h2) {
        c.setAutoCommit(autoCommit);
      }
    }
  }

  /** A URL fit for a log line and an error message: a password parameter's value is hidden. */
  static String redact(String url) {
    return url == null ? null : url.replaceAll("(?i)(password=)[^&;]*", "$1***");
  }

  /** Warns when a hand-written H2 URL drops the durability settings of almanac-h2.conf. */
  private static void warnIfNotDurable(Connection c, String url) throws SQLException {
    if (url == null || url.startsWith("jdbc:h2:mem:")) {
      return;
    }
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'WRITE_DELAY'")) {
      String writeDelay = rs.next() ? rs.getString(1) : "?";
      if (!"0".equals(writeDelay)) {
        log.warn("H2 database {} has WRITE_DELAY={} ms: commits acknowledged in that time are lost on a crash and their "
            + "windows run again; add ;WRITE_DELAY=0 to the URL (almanac-h2.conf does)", url, writeDelay);
      }
    }
    if (url.startsWith("jdbc:h2:") && !url.startsWith("jdbc:h2:async:")) {
      log.warn("H2 database {} does not use the async: file system: an interrupted thread that is writing closes the "
          + "whole database; use jdbc:h2:async:<path> (almanac-h2.conf does)", url);
    }
  }

  private static Map<Table, Boolean> existing(Connection c, List<Table> tables) throws SQLException {
    DatabaseMetaData md = c.getMetaData();
    String escape = md.getSearchStringEscape();
    Map<Table, Boolean> out = new LinkedHashMap<>();
    for (Table t : tables) {
      try (ResultSet rs = md.getTables(null, pattern(t.schema(), escape), pattern(t.name(), escape), null)) {
        out.put(t, rs.next());
      }
    }
    return out;
  }

  private static String pattern(String name, String escape) {
    if (name == null || escape == null || escape.isEmpty()) {
      return name;
    }
    return name.replace(escape, escape + escape).replace("_", escape + "_").replace("%", escape + "%");
  }

  private static List<String> names(Map<Table, Boolean> tables, boolean present) {
    List<String> out = new ArrayList<>();
    tables.forEach((t, exists) -> {
      if (exists == present) {
        out.add(t.qualified());
      }
    });
    return out;
  }

  /** Splits a script into statements: "--" comment lines dropped, split at ";". */
  static List<String> split(String script) {
    StringBuilder code = new StringBuilder();
    for (String line : script.split("\n")) {
      if (!line.strip().startsWith("--")) {
        code.append(line).append('\n');
      }
    }
    List<String> out = new ArrayList<>();
    for (String part : code.toString().split(";")) {
      if (!part.isBlank()) {
        out.add(part.strip());
      }
    }
    return List.copyOf(out);
  }

  private static String firstLine(String sql) {
    int nl = sql.indexOf('\n');
    return nl < 0 ? sql : sql.substring(0, nl) + " ...";
  }
}
