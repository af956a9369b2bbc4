package io.almanac;

/**
 * Where alerts go (R32): final failures, repeated skips, a stopped trigger. Implementations must be
 * thread-safe and quick (hand slow work to another thread); an exception thrown here is logged and
 * otherwise ignored. The default logs at WARN/ERROR through SLF4J.
 */
@FunctionalInterface
public interface AlertSink {

  /** @param alert what happened */
  void alert(Alert alert);
}
