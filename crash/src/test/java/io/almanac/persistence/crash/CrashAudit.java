package io.almanac.persistence.crash;

import io.almanac.persistence.audit.Audit;
import io.almanac.persistence.audit.AuditRequest;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The audit command on a crash run's journal kept by a failed run (or with
 * {@code -Dalmanac.crash.keep=true}), with CrashNode's database options, for a look at a timeline:
 *
 * <pre>
 * java -cp &lt;test class path&gt; io.almanac.persistence.crash.CrashAudit --db h2 \
 *     --h2-path persistence/target/crash/kill9-h2-.../almanac [--task ledger-1] [--window 2026-...Z] [--verify true]
 * </pre>
 */
public final class CrashAudit {

  private CrashAudit() {}

  /**
   * @param args CrashNode's database options, plus optional {@code --task}, {@code --window},
   *     {@code --verify true}, {@code --format table|json|csv}, {@code --grace-seconds n}
   */
  public static void main(String[] args) {
    Map<String, String> o = new LinkedHashMap<>(CrashNode.options(args));
    String task = o.remove("task");
    String window = o.remove("window");
    boolean verify = Boolean.parseBoolean(o.remove("verify"));
    String format = o.getOrDefault("format", "table");
    o.remove("format");
    long grace = Long.parseLong(o.getOrDefault("grace-seconds", "5"));
    o.remove("grace-seconds");
    int exit = Audit.run(CrashNode.journalConfig(o), AuditRequest.builder().task(task).window(window).verify(verify)
        .format(format).grace(Duration.ofSeconds(grace)).build(), System.out, System.err);
    System.exit(exit);
  }
}
