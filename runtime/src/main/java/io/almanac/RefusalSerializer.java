package io.almanac;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.NotSerializableException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.serialization.SerializerWithStringManifest;

/**
 * Serializes the refusals a task entity answers with ({@link RefusedException}, {@link
 * InvalidSpecException}, {@link IllegalTransitionException}, any other {@link AlmanacException}),
 * so that a refusal crossing nodes of a cluster arrives as the same type, with its reason, field and
 * value and its message, instead of failing to serialize (Java serialization is off). Bound to {@code
 * io.almanac.AlmanacException} in reference.conf. Not part of the API: Pekko instantiates it.
 */
final class RefusalSerializer extends SerializerWithStringManifest {

  private static final String REFUSED = "refused";
  private static final String INVALID = "invalid-spec";
  private static final String TRANSITION = "illegal-transition";
  private static final String OTHER = "almanac";

  RefusalSerializer(ExtendedActorSystem system) {}

  @Override
  public int identifier() {
    return 1_947_202; // unique among this system's serializers (Pekko reserves 0-40)
  }

  @Override
  public String manifest(Object o) {
    if (o instanceof RefusedException) {
      return REFUSED;
    }
    if (o instanceof InvalidSpecException) {
      return INVALID;
    }
    if (o instanceof IllegalTransitionException) {
      return TRANSITION;
    }
    return OTHER;
  }

  @Override
  public byte[] toBinary(Object o) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      AlmanacException e = (AlmanacException) o;
      write(out, e.getMessage());
      if (e instanceof RefusedException r) {
        write(out, r.reason().name());
        // after the reason, so a node that reads only the reason still reads the refusal
        write(out, r.field());
        write(out, r.value());
      } else if (e instanceof InvalidSpecException i) {
        write(out, i.field());
        write(out, i.value());
        write(out, i.reason());
      } else if (e instanceof IllegalTransitionException t) {
        write(out, t.from() == null ? null : t.from().name());
        write(out, t.to().name());
      }
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
    return bytes.toByteArray();
  }

  @Override
  public Object fromBinary(byte[] bytes, String manifest) throws NotSerializableException {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      String message = read(in);
      return switch (manifest) {
        case REFUSED -> {
          RefusedException.Reason reason = RefusedException.Reason.valueOf(read(in));
          boolean typed = in.available() > 0; // absent from a node that sent only the reason
          yield new RefusedException(reason, typed ? read(in) : null, typed ? read(in) : null, message);
        }
        case INVALID -> new InvalidSpecException(message, read(in), read(in), read(in));
        case TRANSITION -> {
          String from = read(in);
          yield new IllegalTransitionException(message, from == null ? null : InstanceStatus.valueOf(from),
              InstanceStatus.valueOf(read(in)));
        }
        case OTHER -> new AlmanacException(message);
        default -> throw new NotSerializableException("unknown refusal manifest '" + manifest + "'");
      };
    } catch (IOException | IllegalArgumentException ex) {
      NotSerializableException e = new NotSerializableException("refusal '" + manifest + "' unreadable: " + ex);
      e.initCause(ex);
      throw e;
    }
  }

  private static void write(DataOutputStream out, String s) throws IOException {
    out.writeBoolean(s != null);
    if (s != null) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      out.writeInt(b.length);
      out.write(b);
    }
  }

  private static String read(DataInputStream in) throws IOException {
    if (!in.readBoolean()) {
      return null;
    }
    byte[] b = new byte[in.readInt()];
    in.readFully(b);
    return new String(b, StandardCharsets.UTF_8);
  }
}
