package io.almanac;

/**
 * The typed cause of a window that did not run or did not succeed: a {@link SkipReason} for a {@link
 * InstanceStatus#SKIPPED} window, a {@link MissReason} for a {@link InstanceStatus#MISSED} one, an
 * {@link EndCause} for one whose attempt or itself ended otherwise (failed, timed out, interrupted,
 * cancelled) ({@link WindowView#reasonCode()}, the HTTP API's {@code reasonCode}). Code reads the
 * cause here, never out of the window's {@code reason}, whose text is for people.
 */
public sealed interface ReasonCode permits SkipReason, MissReason, EndCause {

  /** @return the cause's name, as persisted and shown (e.g. {@code PREVIOUS_RUNNING}) */
  String name();
}
