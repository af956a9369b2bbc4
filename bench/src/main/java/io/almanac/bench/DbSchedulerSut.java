package io.almanac.bench;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.task.SchedulableInstance;
import com.github.kagkarlsson.scheduler.task.Task;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.PlainScheduleAndData;
import com.github.kagkarlsson.scheduler.task.helper.RecurringTask;
import com.github.kagkarlsson.scheduler.task.helper.RecurringTaskWithPersistentSchedule;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import com.github.kagkarlsson.scheduler.task.schedule.Schedules;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * db-scheduler 16.x on the run's database. It ships no DDL in its jar: on PostgreSQL the table is
 * its PostgreSQL script (postgresql_tables.sql, the 16.x form: the later migrations that make
 * execution_time nullable and add a state column are for newer versions and unused by 16.7.1); on H2
 * the same script adapted (text to VARCHAR, bytea to BLOB). Default: its default polling, the
 * generic "fetch" strategy (fetch-and-lock-on-execute, 0.5/3.0 of the threads) every 10 s. Tuned:
 * 100 ms polling; on PostgreSQL also its lock-and-fetch strategy (one UPDATE ... FOR UPDATE SKIP
 * LOCKED ... RETURNING statement, 0.5/1.0 of the threads, its DEFAULT_SELECT_FOR_UPDATE), which H2
 * does not support in db-scheduler. 8 threads; HikariCP pool of 10.
 */
final class DbSchedulerSut implements Sut {

  /** postgresql_tables.sql of db-scheduler (16.x form), as published. */
  static final String DDL_POSTGRES = String.join("\n",
      "create table scheduled_tasks (",
      "  task_name text not null,",
      "  task_instance text not null,",
      "  task_data bytea,",
      "  execution_time timestamp with time zone not null,",
      "  picked BOOLEAN not null,",
      "  picked_by text,",
      "  last_success timestamp with time zone,",
      "  last_failure timestamp with time zone,",
      "  consecutive_failures INT,",
      "  last_heartbeat timestamp with time zone,",
      "  version BIGINT not null,",
      "  priority SMALLINT,",
      "  PRIMARY KEY (task_name, task_instance)",
      ");",
      "CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time);",
      "CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat);",
      "CREATE INDEX priority_execution_time_idx on scheduled_tasks (priority desc, execution_time asc);");

  /** The same, adapted to H2. */
  static final String DDL = String.join("\n",
      "create table scheduled_tasks (",
      "  task_name varchar(255) not null,",
      "  task_instance varchar(255) not null,",
      "  task_data blob,",
      "  execution_time timestamp with time zone not null,",
      "  picked boolean not null,",
      "  picked_by varchar(255),",
      "  last_success timestamp with time zone,",
      "  last_failure timestamp with time zone,",
      "  consecutive_failures int,",
      "  last_heartbeat timestamp with time zone,",
      "  version bigint not null,",
      "  priority smallint,",
      "  primary key (task_name, task_instance)",
      ");",
      "create index execution_time_idx on scheduled_tasks (execution_time);",
      "create index last_heartbeat_idx on scheduled_tasks (last_heartbeat);",
      "create index priority_execution_time_idx on scheduled_tasks (priority desc, execution_time asc);");

  private final String name;
  private final boolean tuned;
  private HikariDataSource ds;
  private Scheduler scheduler;
  private OneTimeTask<Void> burst;
  private OneTimeTask<Void> probe;
  private RecurringTaskWithPersistentSchedule<PlainScheduleAndData> daily;
  private Connection probeConn;

  DbSchedulerSut(String name, boolean tuned) {
    this.name = name;
    this.tuned = tuned;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public boolean durable() {
    return true;
  }

  @Override
  public Map<String, Object> settings() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("store", Db.postgres() ? "scheduled_tasks on " + Db.describe() + ", its PostgreSQL DDL as published, 3 indexes"
        : "scheduled_tasks on the H2 file (WRITE_DELAY=0, async:), its PostgreSQL DDL adapted, 3 indexes");
    m.put("threads", Db.WORKERS);
    m.put("pool", Db.POOL);
    m.put("pollingInterval", tuned ? "100ms" : "10s (default)");
    if (!Db.postgres()) {
      m.put("pollingStrategy", "fetch (generic; H2 has no lock-and-fetch support in db-scheduler)");
    } else if (tuned) {
      m.put("pollingStrategy", "lock-and-fetch (pollUsingLockAndFetch(0.5, 1.0): UPDATE ... SELECT ... FOR UPDATE SKIP LOCKED RETURNING)");
    } else {
      m.put("pollingStrategy", "fetch (default: fetch-and-lock-on-execute, 0.5/3.0 of the threads)");
    }
    m.put("steady", "one RecurringTask per task, Schedules.cron(\"* * * * * *\")");
    m.put("daily", "one RecurringTaskWithPersistentSchedule, one instance per task");
    return m;
  }

  @Override
  public void start(Db db, Plan plan, boolean fresh, Recorder rec) throws Exception {
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(db.url());
    hc.setUsername(db.user());
    hc.setPassword(db.password());
    hc.setMaximumPoolSize(Db.POOL);
    hc.setMinimumIdle(Db.POOL);
    ds = new HikariDataSource(hc);
    // outside the pool, as for the other systems: all Db.POOL connections stay db-scheduler's
    probeConn = db.connect();
    probeConn.setAutoCommit(true);
    if (fresh) {
      Db.run(probeConn, Db.postgres() ? DDL_POSTGRES : DDL);
    }
    burst = Tasks.oneTime("burst").execute((inst, ctx) -> rec.record(inst.getId(), ctx.getExecution().executionTime.toEpochMilli()));
    probe = Tasks.oneTime("probe").execute((inst, ctx) -> rec.record("probe", ctx.getExecution().executionTime.toEpochMilli()));
    daily = Tasks.recurringWithPersistentSchedule("daily", PlainScheduleAndData.class)
        .execute((inst, ctx) -> rec.record(inst.getId(), ctx.getExecution().executionTime.toEpochMilli()));
    List<Task<?>> known = new ArrayList<>(List.of(burst, probe, daily));
    List<RecurringTask<Void>> recurring = new ArrayList<>();
    if (plan instanceof Plan.EverySecond e) {
      for (int i = 0; i < e.n(); i++) {
        String id = Plan.id("s", i);
        recurring.add(Tasks.recurring(id, Schedules.cron("* * * * * *", ZoneOffset.UTC))
            .execute((inst, ctx) -> rec.record(id, ctx.getExecution().executionTime.toEpochMilli())));
      }
    } else if (plan instanceof Plan.Overload o) {
      for (int i = 0; i < o.n(); i++) {
        String id = Plan.id("o", i);
        recurring.add(Tasks.recurring(id, Schedules.cron(o.cron(i, "*"), ZoneOffset.UTC))
            .execute((inst, ctx) -> rec.record(id, ctx.getExecution().executionTime.toEpochMilli())));
      }
    }
    var builder = Scheduler.create(ds, known).threads(Db.WORKERS)
        .pollingInterval(tuned ? Duration.ofMillis(100) : Duration.ofSeconds(10));
    if (tuned && Db.postgres()) {
      builder.pollUsingLockAndFetch(0.5, 1.0);
    }
    if (!recurring.isEmpty()) {
      builder.startTasks(recurring);
    }
    scheduler = builder.build();
    if (plan instanceof Plan.Once o) {
      List<TaskInstance<?>> instances = new ArrayList<>();
      for (int i = 0; i < o.n(); i++) {
        instances.add(burst.instance(Plan.id("b", i)));
      }
      scheduler.scheduleBatch(instances, o.due());
    } else if (plan instanceof Plan.Daily d) {
      long t0 = System.nanoTime();
      List<SchedulableInstance<?>> batch = new ArrayList<>();
      for (int i = 0; i < d.n(); i++) {
        LocalTime at = d.firstAt().plusMillis(i * d.spacingMs()).atZone(ZoneOffset.UTC).toLocalTime().withNano(0);
        batch.add(daily.schedulableInstance(Plan.id("d", i), new PlainScheduleAndData(Schedules.daily(ZoneOffset.UTC, at))));
        if (batch.size() == 1000) {
          scheduler.scheduleBatch(batch);
          batch.clear();
          if ((i + 1) % 10000 == 0) {
            Bench.progress("  %s: registered %d of %d (%.1f s)", name, i + 1, d.n(), (System.nanoTime() - t0) / 1e9);
          }
        }
      }
      if (!batch.isEmpty()) {
        scheduler.scheduleBatch(batch);
      }
    }
    scheduler.start();
  }

  @Override
  public void probe(Instant due) throws Exception {
    scheduler.schedule(probe.instance("probe"), due);
  }

  @Override
  public long settled(Plan.Once plan) throws Exception {
    return plan.n() - Db.count(probeConn, "SELECT COUNT(*) FROM scheduled_tasks WHERE task_name = 'burst'");
  }

  @Override
  public void close() throws Exception {
    if (scheduler != null) {
      scheduler.stop();
    }
    if (probeConn != null) {
      probeConn.close();
    }
    if (ds != null) {
      ds.close();
    }
  }
}
