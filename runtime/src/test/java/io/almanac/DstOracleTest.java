package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.zone.ZoneOffsetTransition;
import java.time.zone.ZoneRules;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Checks {@link CronSchedule#nextAfter} against a brute-force reference around every 2026
 * transition of several zones, for every DST policy (R3). The reference lists the cron's nominal
 * local times one by one and maps each to its instants with {@link ZoneRules} as {@link DstPolicy}
 * documents; the schedule under test walks zone intervals instead.
 */
class DstOracleTest {

  private static final CronParser PARSER =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.QUARTZ));

  private static final List<DstPolicy> POLICIES = new ArrayList<>();

  static {
    for (DstPolicy.Gap gap : DstPolicy.Gap.values()) {
      for (DstPolicy.Overlap overlap : DstPolicy.Overlap.values()) {
        POLICIES.add(new DstPolicy(gap, overlap));
      }
    }
  }

  static Stream<Arguments> cases() {
    List<String> zones =
        List.of(
            "America/New_York", "Europe/London", "Australia/Lord_Howe", "Australia/Sydney",
            "America/Santiago", "America/Havana", "Asia/Shanghai");
    List<String> crons =
        List.of(
            "0 */30 * * * ?", "0 0 * * * ?", "0 30 2 * * ?", "0 15,45 0-3 * * ?", "0 */7 * * * ?",
            "0 0 0 * * ?", "0 30 0 * * ?", "0 59 23 * * ?", "0 0 1-3 * * ?", "*/20 * 0-4 * * ?");
    return zones.stream().flatMap(z -> crons.stream().map(c -> Arguments.of(z, c)));
  }

  @ParameterizedTest(name = "R3 oracle: ''{1}'' in {0} around each 2026 transition, every policy")
  @MethodSource("cases")
  void matchesReference(String zoneId, String cron) {
    ZoneId zone = ZoneId.of(zoneId);
    ZoneRules rules = zone.getRules();
    CronSchedule schedule = CronSchedule.parse(cron, zone);
    ExecutionTime executionTime = ExecutionTime.forCron(PARSER.parse(cron));

    List<LocalDateTime> around = new ArrayList<>();
    ZoneOffsetTransition tr = rules.nextTransition(Instant.parse("2026-01-01T00:00:00Z"));
    while (tr != null && tr.getInstant().isBefore(Instant.parse("2027-01-01T00:00:00Z"))) {
      around.add(tr.getDateTimeBefore());
      tr = rules.nextTransition(tr.getInstant());
    }
    if (around.isEmpty()) {
      around.add(LocalDateTime.parse("2026-06-01T02:00")); // a zone without DST: plain check
    }

    for (LocalDateTime center : around) {
      LocalDateTime fromLocal = center.minusDays(1).withHour(0).withMinute(0);
      LocalDateTime toLocal = center.plusDays(2).withHour(0).withMinute(0);
      List<LocalDateTime> nominals = new ArrayList<>();
      ZonedDateTime cursor = fromLocal.minusSeconds(1).atZone(ZoneOffset.UTC);
      while (true) {
        Optional<ZonedDateTime> next = executionTime.nextExecution(cursor);
        if (next.isEmpty() || !next.get().toLocalDateTime().isBefore(toLocal)) {
          break;
        }
        nominals.add(next.get().toLocalDateTime());
        cursor = next.get();
      }
      Instant from = fromLocal.plusHours(4).atZone(zone).toInstant();
      Instant to = toLocal.minusHours(4).atZone(zone).toInstant();
      for (DstPolicy policy : POLICIES) {
        List<String> expected =
            reference(nominals, rules, policy).stream()
                .filter(f -> f.at().isAfter(from) && !f.at().isAfter(to))
                .map(Firing::toString)
                .toList();
        List<String> actual =
            schedule.firingsBetween(from, to, policy, 1_000_000).stream().map(Firing::toString).toList();
        assertEquals(expected, actual, () -> zoneId + " '" + cron + "' " + policy + " near " + center);
      }
    }
  }

  /** The documented mapping, one nominal time at a time. */
  private static List<Firing> reference(List<LocalDateTime> nominals, ZoneRules rules, DstPolicy policy) {
    record Candidate(Firing firing, boolean real) {}
    List<Candidate> candidates = new ArrayList<>();
    for (LocalDateTime nominal : nominals) {
      ZoneOffsetTransition tr = rules.getTransition(nominal);
      if (tr == null) {
        candidates.add(new Candidate(new Firing(nominal, nominal.toInstant(rules.getOffset(nominal))), true));
      } else if (tr.isGap()) {
        if (policy.gap() == DstPolicy.Gap.SHIFT) {
          candidates.add(new Candidate(new Firing(nominal, nominal.toInstant(tr.getOffsetBefore())), false));
        }
      } else {
        if (policy.overlap() != DstPolicy.Overlap.LAST) {
          candidates.add(new Candidate(new Firing(nominal, nominal.toInstant(tr.getOffsetBefore())), true));
        }
        if (policy.overlap() != DstPolicy.Overlap.FIRST) {
          candidates.add(new Candidate(new Firing(nominal, nominal.toInstant(tr.getOffsetAfter())), true));
        }
      }
    }
    candidates.sort(
        Comparator.comparing((Candidate c) -> c.firing().at()).thenComparing(c -> c.real() ? 0 : 1));
    List<Firing> merged = new ArrayList<>();
    for (Candidate c : candidates) {
      if (merged.isEmpty() || !merged.get(merged.size() - 1).at().equals(c.firing().at())) {
        merged.add(c.firing());
      }
    }
    return merged;
  }
}
