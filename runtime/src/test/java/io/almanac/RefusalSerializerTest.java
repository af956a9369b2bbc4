package io.almanac;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.pattern.StatusReply;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A refusal crosses nodes as the same typed exception (R33): the {@code StatusReply} an entity
 * answers with goes through the serializers a remote message goes through, and arrives with its
 * type, reason or field, and message.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RefusalSerializerTest {

  private final ActorTestKit testKit = ActorTestKit.create();
  private final Serialization serialization = SerializationExtension.get(testKit.system().classicSystem());

  @AfterAll
  void stop() {
    testKit.shutdownTestKit();
  }

  /** Serializes a reply as remoting would (serializer id and manifest) and reads it back. */
  private Throwable across(AlmanacException refusal) {
    StatusReply<Object> reply = StatusReply.error(refusal);
    byte[] bytes = serialization.serialize(reply).get();
    var serializer = serialization.findSerializerFor(reply);
    Object back = serialization.deserialize(bytes, serializer.identifier(), Serializers.manifestFor(serializer, reply)).get();
    return ((StatusReply<?>) back).getError();
  }

  @Test
  @DisplayName("R33: a typed refusal keeps its reason and message across nodes")
  void refused() {
    for (RefusedException.Reason reason : RefusedException.Reason.values()) {
      RefusedException r = assertInstanceOf(RefusedException.class,
          across(new RefusedException(reason, "task 'digest' is unknown: define it first")));
      assertEquals(reason, r.reason());
      assertEquals("task 'digest' is unknown: define it first", r.getMessage());
    }
  }

  @Test
  @DisplayName("R33: a refusal of one field keeps its field and value as data across nodes; one without them has none")
  void refusedField() {
    RefusedException e = RefusedException.invalid(RefusedException.Reason.INVALID_ARGUMENT, "to", "2027-01-01T00:00:00Z",
        "a backfill covers past windows only");
    assertEquals("to '2027-01-01T00:00:00Z' is invalid: a backfill covers past windows only", e.getMessage());
    RefusedException back = assertInstanceOf(RefusedException.class, across(e));
    assertEquals(RefusedException.Reason.INVALID_ARGUMENT, back.reason());
    assertEquals("to", back.field());
    assertEquals("2027-01-01T00:00:00Z", back.value());
    assertEquals(e.getMessage(), back.getMessage());
    RefusedException plain = assertInstanceOf(RefusedException.class,
        across(new RefusedException(RefusedException.Reason.CONFLICT, "window 'w' is RUNNING")));
    assertNull(plain.field());
    assertNull(plain.value());
  }

  @Test
  @DisplayName("R33: a refusal of a null value says the field is missing, never 'null', and keeps no value")
  void refusedNull() {
    RefusedException e = RefusedException.invalid(RefusedException.Reason.INVALID_ARGUMENT, "dryRun", null,
        "must be true or false");
    assertEquals("dryRun is missing: must be true or false", e.getMessage());
    assertEquals("dryRun", e.field());
    assertNull(e.value());
    RefusedException back = assertInstanceOf(RefusedException.class, across(e));
    assertEquals(e.getMessage(), back.getMessage());
    assertNull(back.value());
  }

  @Test
  @DisplayName("a refusal from a node that sends only the reason and the message reads without a field")
  void refusedFromAnOlderNode() throws Exception {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
      for (String s : List.of("task 'x' is unknown", "UNKNOWN_TASK")) {
        byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        out.writeBoolean(true);
        out.writeInt(b.length);
        out.write(b);
      }
    }
    var serializer = (org.apache.pekko.serialization.SerializerWithStringManifest) serialization.findSerializerFor(
        new RefusedException(RefusedException.Reason.UNKNOWN_TASK, "x"));
    RefusedException back = (RefusedException) serializer.fromBinary(bytes.toByteArray(), "refused");
    assertEquals(RefusedException.Reason.UNKNOWN_TASK, back.reason());
    assertEquals("task 'x' is unknown", back.getMessage());
    assertNull(back.field());
  }

  @Test
  @DisplayName("R33: a bad spec keeps its field, value, reason and message across nodes, including a null value")
  void invalidSpec() {
    for (InvalidSpecException e : List.of(new InvalidSpecException("cron", "0 0 25 * * ?", "hour 25 is out of range"),
        new InvalidSpecException("digest", new InvalidSpecException("zone", null, "must be set")))) {
      InvalidSpecException back = assertInstanceOf(InvalidSpecException.class, across(e));
      assertEquals(e.getMessage(), back.getMessage());
      assertEquals(e.field(), back.field());
      assertEquals(e.value(), back.value());
      assertEquals(e.reason(), back.reason());
    }
    assertNull(((InvalidSpecException) across(new InvalidSpecException("zone", null, "must be set"))).value());
  }

  @Test
  @DisplayName("R20: an illegal transition keeps its statuses and message across nodes")
  void illegalTransition() {
    IllegalTransitionException e = new IllegalTransitionException(null, InstanceStatus.RESOLVED, "2026-11-29");
    IllegalTransitionException back = assertInstanceOf(IllegalTransitionException.class, across(e));
    assertNull(back.from());
    assertEquals(InstanceStatus.RESOLVED, back.to());
    assertEquals(e.getMessage(), back.getMessage());
    assertEquals("effect outcome unknown", across(new AlmanacException("effect outcome unknown")).getMessage());
  }
}
