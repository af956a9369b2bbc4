package io.almanac;

import io.almanac.internal.meter.MessageTap;

/**
 * The bench's way to the builder's package-private message tap: it counts the messages the node's
 * actors receive per fire, as the fire-cost test does. Not part of Almanac's API (it lives in the
 * bench module, in Almanac's package, for this access only).
 */
public final class BenchTap {
  private BenchTap() {}

  /**
   * @param builder the node's builder
   * @param tap sees every message the trigger, the task entities and the executor receive
   * @return the builder
   */
  public static Almanac.Builder tap(Almanac.Builder builder, MessageTap tap) {
    return builder.messageTap(tap);
  }
}
