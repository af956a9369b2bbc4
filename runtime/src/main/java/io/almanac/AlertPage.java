package io.almanac;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonPOJOBuilder;
import java.util.List;

/**
 * A page of the alert history ({@link Almanac#alerts}), newest first.
 * Made by the runtime and read by the caller: it has no public constructor, so that a part added
 * later changes no caller's build (the runtime makes these with {@link Builder}, which is INTERNAL
 * API). Two of them are equal when all their parts are, like a record's; {@link #toString()} names
 * every part.
 */
@JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
    isGetterVisibility = JsonAutoDetect.Visibility.NONE)
@JsonDeserialize(builder = AlertPage.Builder.class)
public final class AlertPage {
  private final List<AlertRecord> alerts;
  private final Long next;

  private AlertPage(Builder b) {
    this.alerts = b.alerts == null ? List.of() : List.copyOf(b.alerts);
    this.next = b.next;
  }

  /**
   * INTERNAL API: for the runtime and its modules (and tests); a user reads these, never makes one.
   *
   * @return a builder with no alerts and no next page
   * @hidden
   */
  public static Builder builder() {
    return new Builder();
  }

  /** @return the alerts of the page, newest first (never null) */
  public List<AlertRecord> alerts() {
    return alerts;
  }

  /** @return the {@code before} of the next (older) page, or null when this is the last */
  public Long next() {
    return next;
  }

  /**
   * @param other another object
   * @return whether it is an AlertPage with equal parts
   */
  @Override
  public boolean equals(Object other) {
    return this == other || other instanceof AlertPage o && java.util.Arrays.equals(parts(), o.parts());
  }

  /** @return a hash of every part */
  @Override
  public int hashCode() {
    return java.util.Arrays.hashCode(parts());
  }

  /** @return every part, named, as a record shows them */
  @Override
  public String toString() {
    String[] names = {"alerts", "next"};
    Object[] parts = parts();
    StringBuilder b = new StringBuilder("AlertPage[");
    for (int i = 0; i < names.length; i++) {
      b.append(i == 0 ? "" : ", ").append(names[i]).append('=').append(parts[i]);
    }
    return b.append(']').toString();
  }

  private Object[] parts() {
    return new Object[] {alerts, next};
  }

  /**
   * INTERNAL API: makes a {@link AlertPage}, part by part (for the runtime and its modules: a user reads
   * these, never makes one). A part not set is null, 0 or false, and no alerts.
   *
   * @hidden
   */
  @JsonPOJOBuilder(withPrefix = "")
  public static final class Builder {
    private List<AlertRecord> alerts;
    private Long next;

    private Builder() {}

    /**
     * @param v see {@link AlertPage#alerts()}
     * @return this builder
     */
    public Builder alerts(List<AlertRecord> v) {
      alerts = v;
      return this;
    }

    /**
     * @param v see {@link AlertPage#next()}
     * @return this builder
     */
    public Builder next(Long v) {
      next = v;
      return this;
    }

    /** @return the page */
    public AlertPage build() {
      return new AlertPage(this);
    }
  }
}
