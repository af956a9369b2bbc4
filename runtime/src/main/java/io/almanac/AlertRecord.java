package io.almanac;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonPOJOBuilder;
import java.time.Instant;
import java.util.List;

/**
 * An alert as the node's alert history keeps it ({@link Almanac#alerts}): what fired, when, for which
 * task and window, on which node, and where it was delivered. The history is kept in its own journal
 * (the latest {@value #KEPT} alerts of the cluster); see docs/alerts.md.
 * Made by the runtime and read by the caller: it has no public constructor, so that a part added
 * later changes no caller's build (the runtime makes these with {@link Builder}, which is INTERNAL
 * API). Two of them are equal when all their parts are, like a record's; {@link #toString()} names
 * every part.
 */
@JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
    isGetterVisibility = JsonAutoDetect.Visibility.NONE)
@JsonDeserialize(builder = AlertRecord.Builder.class)
public final class AlertRecord {
  /** How many alerts the history keeps: older ones are forgotten as new ones come. */
  public static final int KEPT = 1000;

  /** Where an alert stands at one sink. */
  public enum DeliveryStatus {
    /** The sink took it (the webhook answered 2xx; the node's sink returned). */
    DELIVERED,
    /** An attempt failed and another is due (the webhook's backoff). */
    RETRYING,
    /** It was not delivered and will not be tried again (refused, gave up, dropped, the sink threw). */
    FAILED
  }

  private final long seq;
  private final String id;
  private final Alert.Kind kind;
  private final String taskId;
  private final String window;
  private final String message;
  private final Instant at;
  private final String node;
  private final List<Delivery> deliveries;

  private AlertRecord(Builder b) {
    this.seq = b.seq;
    this.id = b.id;
    this.kind = b.kind;
    this.taskId = b.taskId;
    this.window = b.window;
    this.message = b.message;
    this.at = b.at;
    this.node = b.node;
    this.deliveries = b.deliveries == null ? List.of() : List.copyOf(b.deliveries);
  }

  /**
   * INTERNAL API: for the runtime and its modules (and tests); a user reads these, never makes one.
   *
   * @return a builder with every part null or 0 (no deliveries)
   * @hidden
   */
  public static Builder builder() {
    return new Builder();
  }

  /** @return its place in the history, counting from 1 (newer alerts have larger ones) */
  public long seq() {
    return seq;
  }

  /** @return the alert's id, as the webhook's body carries it */
  public String id() {
    return id;
  }

  /** @return what happened */
  public Alert.Kind kind() {
    return kind;
  }

  /** @return the task, or null for a node-wide alert */
  public String taskId() {
    return taskId;
  }

  /** @return the window, or null */
  public String window() {
    return window;
  }

  /** @return a sentence for a person */
  public String message() {
    return message;
  }

  /** @return when it happened (UTC) */
  public Instant at() {
    return at;
  }

  /** @return the node that raised it (its cluster address) */
  public String node() {
    return node;
  }

  /** @return where it went: one entry per sink, its latest state (never null) */
  public List<Delivery> deliveries() {
    return deliveries;
  }

  /**
   * @param other another object
   * @return whether it is an AlertRecord with equal parts
   */
  @Override
  public boolean equals(Object other) {
    return this == other || other instanceof AlertRecord o && java.util.Arrays.equals(parts(), o.parts());
  }

  /** @return a hash of every part */
  @Override
  public int hashCode() {
    return java.util.Arrays.hashCode(parts());
  }

  /** @return every part, named, as a record shows them */
  @Override
  public String toString() {
    String[] names = {"seq", "id", "kind", "taskId", "window", "message", "at", "node", "deliveries"};
    Object[] parts = parts();
    StringBuilder b = new StringBuilder("AlertRecord[");
    for (int i = 0; i < names.length; i++) {
      b.append(i == 0 ? "" : ", ").append(names[i]).append('=').append(parts[i]);
    }
    return b.append(']').toString();
  }

  private Object[] parts() {
    return new Object[] {seq, id, kind, taskId, window, message, at, node, deliveries};
  }

  /**
   * An alert's latest state at one sink.
   * Made by the runtime, like {@link AlertRecord}: no public constructor, and its {@link Builder} is
   * INTERNAL API; equal when all its parts are.
   */
  @JsonAutoDetect(fieldVisibility = JsonAutoDetect.Visibility.ANY, getterVisibility = JsonAutoDetect.Visibility.NONE,
      isGetterVisibility = JsonAutoDetect.Visibility.NONE)
  @JsonDeserialize(builder = AlertRecord.Delivery.Builder.class)
  public static final class Delivery {
    private final String sink;
    private final DeliveryStatus status;
    private final int attempts;
    private final String detail;
    private final Instant at;

    private Delivery(Builder b) {
      this.sink = b.sink;
      this.status = b.status;
      this.attempts = b.attempts;
      this.detail = b.detail;
      this.at = b.at;
    }

    /**
     * INTERNAL API: for the runtime and its modules (and tests); a user reads these, never makes one.
     *
     * @return a builder with every part null, 0 or false
     * @hidden
     */
    public static Builder builder() {
      return new Builder();
    }

    /**
     * @return the sink: {@code log} (the default logging sink), {@code sink} (the application's {@link
     *     AlertSink}) or {@code webhook <scheme://host:port>}
     */
    public String sink() {
      return sink;
    }

    /** @return where it stands */
    public DeliveryStatus status() {
      return status;
    }

    /** @return attempts made so far (0: dropped before any) */
    public int attempts() {
      return attempts;
    }

    /** @return why it failed or is retried (an HTTP status, a timeout), or null */
    public String detail() {
      return detail;
    }

    /** @return when this state was recorded (UTC) */
    public Instant at() {
      return at;
    }

    /**
     * @param other another object
     * @return whether it is a Delivery with equal parts
     */
    @Override
    public boolean equals(Object other) {
      return this == other || other instanceof Delivery o && java.util.Arrays.equals(parts(), o.parts());
    }

    /** @return a hash of every part */
    @Override
    public int hashCode() {
      return java.util.Arrays.hashCode(parts());
    }

    /** @return every part, named, as a record shows them */
    @Override
    public String toString() {
      String[] names = {"sink", "status", "attempts", "detail", "at"};
      Object[] parts = parts();
      StringBuilder b = new StringBuilder("Delivery[");
      for (int i = 0; i < names.length; i++) {
        b.append(i == 0 ? "" : ", ").append(names[i]).append('=').append(parts[i]);
      }
      return b.append(']').toString();
    }

    private Object[] parts() {
      return new Object[] {sink, status, attempts, detail, at};
    }

    /**
     * INTERNAL API: makes a {@link AlertRecord.Delivery}, part by part (for the runtime and its modules: a user reads
     * these, never makes one). A part not set is null, 0 or false.
     *
     * @hidden
     */
    @JsonPOJOBuilder(withPrefix = "")
    public static final class Builder {
      private String sink;
      private DeliveryStatus status;
      private int attempts;
      private String detail;
      private Instant at;

      private Builder() {}

      /**
       * @param v see {@link AlertRecord.Delivery#sink()}
       * @return this builder
       */
      public Builder sink(String v) {
        sink = v;
        return this;
      }

      /**
       * @param v see {@link AlertRecord.Delivery#status()}
       * @return this builder
       */
      public Builder status(DeliveryStatus v) {
        status = v;
        return this;
      }

      /**
       * @param v see {@link AlertRecord.Delivery#attempts()}
       * @return this builder
       */
      public Builder attempts(int v) {
        attempts = v;
        return this;
      }

      /**
       * @param v see {@link AlertRecord.Delivery#detail()}
       * @return this builder
       */
      public Builder detail(String v) {
        detail = v;
        return this;
      }

      /**
       * @param v see {@link AlertRecord.Delivery#at()}
       * @return this builder
       */
      public Builder at(Instant v) {
        at = v;
        return this;
      }

      /** @return the delivery */
      public Delivery build() {
        return new Delivery(this);
      }
    }
  }

  /**
   * INTERNAL API: makes a {@link AlertRecord}, part by part (for the runtime and its modules: a user reads
   * these, never makes one). A part not set is null, 0 or false, and no deliveries.
   *
   * @hidden
   */
  @JsonPOJOBuilder(withPrefix = "")
  public static final class Builder {
    private long seq;
    private String id;
    private Alert.Kind kind;
    private String taskId;
    private String window;
    private String message;
    private Instant at;
    private String node;
    private List<Delivery> deliveries;

    private Builder() {}

    /**
     * @param v see {@link AlertRecord#seq()}
     * @return this builder
     */
    public Builder seq(long v) {
      seq = v;
      return this;
    }

    /**
     * @param v see {@link AlertRecord#id()}
     * @return this builder
     */
    public Builder id(String v) {
      id = v;
      return this;
    }

    /**
     * @param v see {@link AlertRecord#kind()}
     * @return this builder
     */
    public Builder kind(Alert.Kind v) {
      kind = v;
      return this;
    }

    /**
     * @param v see {@link AlertRecord#taskId()}
     * @return this builder
     */
    public Builder taskId(String v) {
      taskId = v;
      return this;
    }

    /**
     * @param v see {@link AlertRecord#window()}
     * @return this builder
     */
    public Builder window(String v) {
      window = v;
      return this;
    }

    /**
     * @param v see {@link AlertRecord#message()}
     * @return this builder
     */
    public Builder message(String v) {
      message = v;
      return this;
    }

    /**
     * @param v see {@link AlertRecord#at()}
     * @return this builder
     */
    public Builder at(Instant v) {
      at = v;
      return this;
    }

    /**
     * @param v see {@link AlertRecord#node()}
     * @return this builder
     */
    public Builder node(String v) {
      node = v;
      return this;
    }

    /**
     * @param v see {@link AlertRecord#deliveries()}
     * @return this builder
     */
    public Builder deliveries(List<Delivery> v) {
      deliveries = v;
      return this;
    }

    /** @return the alert */
    public AlertRecord build() {
      return new AlertRecord(this);
    }
  }
}
