/**
 * A task's schedule as the runtime computes it: which business windows a spec makes due, and when.
 * Published for journal readers such as the audit, which rebuild a task's due windows from the spec
 * its journal holds ({@code TaskJournal.SpecDefined}) with the same code the trigger fires them by:
 * {@link io.almanac.schedule.Schedules#of} gives a spec's {@link io.almanac.schedule.TaskSchedule},
 * whose {@link io.almanac.schedule.TaskSchedule#dueBetween} lists the
 * {@link io.almanac.schedule.DueWindow}s of a span of time.
 */
package io.almanac.schedule;
