package io.almanac.journal;

import io.almanac.JobLog;
import java.time.Instant;

/**
 * One line of an attempt's own log ({@link io.almanac.JobContext#log()}), as the journal keeps it in
 * {@link TaskJournal.AttemptLogged}.
 *
 * @param at when the job logged it (the executor's clock)
 * @param level its level
 * @param text its text, already formatted and bounded
 */
public record LogLine(Instant at, JobLog.Level level, String text) {}
