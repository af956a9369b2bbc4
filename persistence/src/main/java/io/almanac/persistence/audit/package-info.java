/**
 * Audit replay (R28): rebuild the history of any task or window from the journal and check that
 * Almanac kept its promises, without a running node.
 *
 * <ul>
 *   <li>{@link io.almanac.persistence.audit.AuditReader} reads the task journals through Pekko
 *       Persistence Query (the JDBC read journal, so H2 and PostgreSQL alike) as
 *       {@link io.almanac.persistence.audit.AuditEvent}s, with a progress line on long journals.
 *   <li>{@link io.almanac.persistence.audit.Timeline} prints them as a table, JSON lines or CSV,
 *       with every time in UTC and in the task's zone.
 *   <li>{@link io.almanac.persistence.audit.Verifier} checks the invariants I1-I8 and returns a
 *       {@link io.almanac.persistence.audit.VerificationReport}.
 *   <li>{@link io.almanac.persistence.audit.Audit#run} is the whole command (what the samples CLI
 *       wraps): request in, output and exit code out.
 *   <li>{@link io.almanac.persistence.audit.WindowExplanation} says in words why one window ran, did
 *       not run or ran late, from the task's events alone (a pure function);
 *       {@link io.almanac.persistence.audit.WindowHistory} reads a task's events live on a running
 *       node's own ActorSystem (which holds its H2 file), for the HTTP API's timeline and why.
 * </ul>
 */
package io.almanac.persistence.audit;
