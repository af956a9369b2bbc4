/**
 * INTERNAL API: OpenTelemetry spans of attempts and their durable steps (docs/tracing.md). Names
 * nothing else of io.almanac.internal; a no-op OpenTelemetry makes {@link
 * io.almanac.internal.trace.AttemptTracing#OFF}, which begins nothing.
 */
package io.almanac.internal.trace;
