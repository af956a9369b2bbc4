package io.almanac.bench;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.quartz.CronScheduleBuilder;
import org.quartz.Job;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobExecutionContext;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.impl.StdSchedulerFactory;
import org.quartz.impl.matchers.GroupMatcher;

/**
 * Quartz 2.5: RAMJobStore (not durable, the in-memory reference) or JobStoreTX on the run's database.
 * On H2: default is Quartz's shipped tables_h2.sql (no secondary indexes) with StdJDBCDelegate and
 * default settings (one trigger per acquisition, misfire threshold 60 s); tuned adds the PostgreSQL
 * script's indexes, batch acquisition of up to 8 triggers (acquireTriggersWithinLock, as the docs
 * require for batches) and a 5 s misfire threshold. On PostgreSQL both use the shipped
 * tables_postgres.sql (which has the 20 indexes) and PostgreSQLDelegate (BYTEA job data, as the
 * script's header asks); tuned differs by the batch acquisition and the misfire threshold. Every
 * variant: 8 worker threads; JDBC pool of 10 (HikariCP).
 */
final class QuartzSut implements Sut {

  /** The job body: record the start and return. Quartz instantiates it per fire. */
  public static final class BenchJob implements Job {
    @Override
    public void execute(JobExecutionContext ctx) {
      Recorder.global.record(ctx.getJobDetail().getKey().getName(), ctx.getScheduledFireTime().getTime());
    }
  }

  private final String name;
  private final boolean jdbc;
  private final boolean tuned;
  private Scheduler scheduler;
  private Connection probeConn;

  QuartzSut(String name, boolean jdbc, boolean tuned) {
    this.name = name;
    this.jdbc = jdbc;
    this.tuned = tuned;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public boolean durable() {
    return jdbc;
  }

  @Override
  public Map<String, Object> settings() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("store", !jdbc ? "RAMJobStore (not durable)"
        : "JobStoreTX + " + (Db.postgres() ? "PostgreSQLDelegate" : "StdJDBCDelegate") + " on " + Db.describe());
    m.put("threadCount", Db.WORKERS);
    if (jdbc) {
      m.put("maxConnections", Db.POOL);
      if (Db.postgres()) {
        m.put("schema", "tables_postgres.sql as shipped (its 20 indexes included)");
      } else {
        m.put("schema", tuned ? "tables_h2.sql + the PostgreSQL script's 20 indexes" : "tables_h2.sql as shipped (no secondary indexes)");
      }
    }
    m.put("batchTriggerAcquisitionMaxCount", tuned ? Db.WORKERS : 1);
    m.put("misfireThreshold_ms", tuned ? 5000 : 60000);
    m.put("misfire_instruction", "smart policy (SimpleTrigger once: fire now; CronTrigger: fire once now)");
    return m;
  }

  private Properties props(Db db) {
    Properties p = new Properties();
    p.setProperty("org.quartz.scheduler.instanceName", "bench");
    p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
    p.setProperty("org.quartz.threadPool.threadCount", String.valueOf(Db.WORKERS));
    p.setProperty("org.quartz.jobStore.misfireThreshold", tuned ? "5000" : "60000");
    if (tuned) {
      p.setProperty("org.quartz.scheduler.batchTriggerAcquisitionMaxCount", String.valueOf(Db.WORKERS));
    }
    if (!jdbc) {
      p.setProperty("org.quartz.jobStore.class", "org.quartz.simpl.RAMJobStore");
      return p;
    }
    p.setProperty("org.quartz.jobStore.class", "org.quartz.impl.jdbcjobstore.JobStoreTX");
    p.setProperty("org.quartz.jobStore.driverDelegateClass",
        Db.postgres() ? "org.quartz.impl.jdbcjobstore.PostgreSQLDelegate" : "org.quartz.impl.jdbcjobstore.StdJDBCDelegate");
    p.setProperty("org.quartz.jobStore.dataSource", "ds");
    p.setProperty("org.quartz.jobStore.tablePrefix", "QRTZ_");
    if (tuned) {
      p.setProperty("org.quartz.jobStore.acquireTriggersWithinLock", "true");
    }
    p.setProperty("org.quartz.dataSource.ds.provider", "hikaricp");
    p.setProperty("org.quartz.dataSource.ds.driver", db.driver());
    p.setProperty("org.quartz.dataSource.ds.URL", db.url());
    p.setProperty("org.quartz.dataSource.ds.user", db.user());
    p.setProperty("org.quartz.dataSource.ds.password", db.password());
    p.setProperty("org.quartz.dataSource.ds.maxConnections", String.valueOf(Db.POOL));
    return p;
  }

  static String resource(String path) throws Exception {
    try (InputStream in = Scheduler.class.getClassLoader().getResourceAsStream(path)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private void createSchema(Connection c) throws Exception {
    if (Db.postgres()) {
      // into the run's new, empty schema (currentSchema); the script's DROP TABLE IF EXISTS find nothing
      Db.run(c, resource("org/quartz/impl/jdbcjobstore/tables_postgres.sql"));
      return;
    }
    Db.run(c, resource("org/quartz/impl/jdbcjobstore/tables_h2.sql"));
    if (tuned) {
      for (String sql : Db.statements(resource("org/quartz/impl/jdbcjobstore/tables_postgres.sql"))) {
        if (sql.toUpperCase().startsWith("CREATE INDEX")) {
          Db.run(c, sql);
        }
      }
    }
  }

  @Override
  public void start(Db db, Plan plan, boolean fresh, Recorder rec) throws Exception {
    Recorder.global = rec;
    if (jdbc) {
      probeConn = db.connect();
      if (fresh) {
        createSchema(probeConn);
      }
    }
    scheduler = new StdSchedulerFactory(props(db)).getScheduler();
    if (plan != null) {
      register(plan);
    }
    scheduler.start();
  }

  private void register(Plan plan) throws Exception {
    String group = plan instanceof Plan.Once ? "burst" : plan instanceof Plan.EverySecond ? "steady"
        : plan instanceof Plan.Overload ? "overload" : "daily";
    Set<JobKey> existing = scheduler.getJobKeys(GroupMatcher.jobGroupEquals(group));
    long t0 = System.nanoTime();
    Map<JobDetail, Set<? extends Trigger>> batch = new HashMap<>();
    for (int i = 0; i < plan.n(); i++) {
      String id = Plan.id(group.equals("steady") ? "s" : group.substring(0, 1), i);
      if (existing.contains(JobKey.jobKey(id, group))) {
        continue;
      }
      JobDetail job = JobBuilder.newJob(BenchJob.class).withIdentity(id, group).build();
      TriggerBuilder<Trigger> tb = TriggerBuilder.newTrigger().withIdentity(id, group);
      Trigger trigger;
      if (plan instanceof Plan.Once o) {
        trigger = tb.startAt(Date.from(o.due())).withSchedule(SimpleScheduleBuilder.simpleSchedule()).build();
      } else if (plan instanceof Plan.EverySecond) {
        trigger = tb.withSchedule(CronScheduleBuilder.cronSchedule("* * * * * ?").inTimeZone(java.util.TimeZone.getTimeZone("UTC")))
            .build();
      } else if (plan instanceof Plan.Overload o) {
        trigger = tb.withSchedule(CronScheduleBuilder.cronSchedule(o.cron(i, "?")).inTimeZone(java.util.TimeZone.getTimeZone("UTC")))
            .build();
      } else {
        Plan.Daily d = (Plan.Daily) plan;
        ZonedDateTime z = d.firstAt().plusMillis(i * d.spacingMs()).atZone(ZoneOffset.UTC);
        trigger = tb.withSchedule(CronScheduleBuilder.cronSchedule(
            String.format("%d %d %d * * ?", z.getSecond(), z.getMinute(), z.getHour()))
            .inTimeZone(java.util.TimeZone.getTimeZone("UTC"))).build();
      }
      batch.put(job, Set.of(trigger));
      if (batch.size() == 1000) {
        scheduler.scheduleJobs(batch, false);
        batch.clear();
        if (plan.n() >= 5000 && (i + 1) % 10000 == 0) {
          Bench.progress("  %s: registered %d of %d (%.1f s)", name, i + 1, plan.n(), (System.nanoTime() - t0) / 1e9);
        }
      }
    }
    if (!batch.isEmpty()) {
      scheduler.scheduleJobs(batch, false);
    }
  }

  @Override
  public void probe(Instant due) throws Exception {
    JobDetail job = JobBuilder.newJob(BenchJob.class).withIdentity("probe", "probe").build();
    scheduler.scheduleJob(job, TriggerBuilder.newTrigger().withIdentity("probe", "probe").startAt(Date.from(due)).build());
  }

  @Override
  public long settled(Plan.Once plan) throws Exception {
    if (!jdbc) {
      return -1;
    }
    return plan.n() - Db.count(probeConn, "SELECT COUNT(*) FROM QRTZ_TRIGGERS WHERE TRIGGER_GROUP = 'burst'")
        - Db.count(probeConn, "SELECT COUNT(*) FROM QRTZ_FIRED_TRIGGERS WHERE TRIGGER_GROUP = 'burst'");
  }

  @Override
  public void close() throws Exception {
    if (scheduler != null) {
      // true: join the scheduler thread before the job store closes its pool; with false the thread
      // may still be acquiring triggers and logs "Connection is closed" (jobs here take microseconds)
      scheduler.shutdown(true);
    }
    if (probeConn != null) {
      probeConn.close();
    }
  }
}
