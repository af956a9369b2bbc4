package io.almanac.internal.task;

/** Bounded echoes of user text in messages (principle 6). INTERNAL API. */
final class Texts {

  private Texts() {}

  /**
   * @param s a value to echo in a message
   * @return at most its first 40 characters, with "..." when cut
   */
  static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "...";
  }
}
