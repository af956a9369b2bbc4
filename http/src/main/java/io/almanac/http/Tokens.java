package io.almanac.http;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import io.almanac.InvalidSpecException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The HTTP API's named bearer tokens, checked: {@code almanac.http.tokens} (each a name, its token
 * and a role, {@code read} or {@code operate}) and the single {@code almanac.http.token}, an
 * {@code operate} token named {@value #LEGACY_NAME}. A token is kept only as its SHA-256 digest and
 * never written to a log or an error: a refusal names the key, not the value. Pure.
 */
final class Tokens {

  /** The name of the token set by {@code almanac.http.token}. */
  static final String LEGACY_NAME = "operator";

  /** A token's role. */
  enum Role {
    /** May read (when reads need a token), never act: a mutating call is 403. */
    READ,
    /** May read and act: its name is recorded as the actor of each action. */
    OPERATE
  }

  /** A configured token: its name (the actor it acts as), its role and its digest. */
  record Named(String name, Role role, byte[] digest) {
    @Override
    public String toString() {
      return "Named[" + name + ", " + role + "]"; // never the digest
    }
  }

  private final List<Named> all;
  private final boolean readRequiresToken;

  private Tokens(List<Named> all, boolean readRequiresToken) {
    this.all = List.copyOf(all);
    this.readRequiresToken = readRequiresToken;
  }

  /** @return the tokens, in name order, the legacy one first */
  List<Named> all() {
    return all;
  }

  /** @return whether there is no token (every mutating call is refused) */
  boolean isEmpty() {
    return all.isEmpty();
  }

  /** @return whether there is a token that may act */
  boolean anyOperator() {
    return all.stream().anyMatch(t -> t.role() == Role.OPERATE);
  }

  /** @return whether the reads under {@code /api} and {@code /metrics} need a token too */
  boolean readRequiresToken() {
    return readRequiresToken;
  }

  /**
   * The configured token a presented one is, compared in constant time with every token (no early
   * exit: the time does not tell which one matched, or how much of one).
   *
   * @param presented the bearer token a call carries
   * @return its entry, or empty
   */
  Optional<Named> match(String presented) {
    byte[] digest = sha256(presented);
    Named found = null;
    for (Named t : all) {
      if (MessageDigest.isEqual(t.digest(), digest) && found == null) {
        found = t;
      }
    }
    return Optional.ofNullable(found);
  }

  /**
   * @param token one operate token named {@value #LEGACY_NAME}, taken as given (as the constructor of
   *     {@link ApiRoutes} takes it), or null or "" for none
   * @return the tokens: that one, or none
   */
  static Tokens single(String token) {
    return new Tokens(token == null || token.isEmpty() ? List.of() : List.of(new Named(LEGACY_NAME, Role.OPERATE,
        sha256(token))), false);
  }

  /**
   * @param config the node's configuration
   * @return its tokens
   * @throws InvalidSpecException naming the key (and, for a role or a name, the value; never a
   *     token's value) when one is wrong
   */
  static Tokens from(Config config) {
    List<Named> all = new ArrayList<>();
    Map<String, String> keyOfDigest = new TreeMap<>();
    String legacy = string(config, "almanac.http.token");
    if (!legacy.isEmpty()) {
      checkToken("almanac.http.token", legacy, true);
      all.add(new Named(LEGACY_NAME, Role.OPERATE, sha256(legacy)));
      keyOfDigest.put(hex(sha256(legacy)), "almanac.http.token");
    }
    ConfigObject tokens;
    try {
      tokens = config.hasPath("almanac.http.tokens") ? config.getObject("almanac.http.tokens") : null;
    } catch (ConfigException e) {
      throw InvalidSpecException.withoutValue("almanac.http.tokens", "must be an object of named tokens, e.g. "
          + "tokens { alice { token = ${?ALICE_TOKEN}, role = operate } }");
    }
    if (tokens != null) {
      for (String name : new TreeMap<>(tokens).keySet()) {
        String key = "almanac.http.tokens." + quoted(name);
        ConfigValue value = tokens.get(name);
        if (value.valueType() != ConfigValueType.OBJECT) {
          throw InvalidSpecException.withoutValue(key, "must be an object { token = ..., role = read | operate }");
        }
        if (!name.matches("[A-Za-z0-9._@-]{1,64}")) {
          throw new InvalidSpecException(key, name, "a token's name (the actor it acts as) must be 1 to 64 letters, digits "
              + "and . _ @ -");
        }
        if (name.equals(LEGACY_NAME) && !legacy.isEmpty()) {
          throw new InvalidSpecException(key, name, "is the name of almanac.http.token's token: name it otherwise, or "
              + "set only one of them");
        }
        Config entry = ((ConfigObject) value).toConfig();
        for (String field : new TreeMap<>(entry.root()).keySet()) {
          if (!field.equals("token") && !field.equals("role")) {
            throw InvalidSpecException.withoutValue(key + "." + field, "is not a setting of a token (token, role)");
          }
        }
        if (!entry.hasPath("token")) {
          throw InvalidSpecException.missing(key + ".token", "with token = ${?VARIABLE}, is the variable set?");
        }
        String token = string(entry, "token", key + ".token");
        checkToken(key + ".token", token, false);
        if (!entry.hasPath("role")) {
          throw InvalidSpecException.missing(key + ".role", "read or operate");
        }
        String roleText = string(entry, "role", key + ".role");
        Role role = switch (roleText) {
          case "read" -> Role.READ;
          case "operate" -> Role.OPERATE;
          default -> throw new InvalidSpecException(key + ".role", roleText, "must be read or operate");
        };
        byte[] digest = sha256(token);
        String same = keyOfDigest.putIfAbsent(hex(digest), key + ".token");
        if (same != null) {
          throw InvalidSpecException.withoutValue(key + ".token", "is the same token as " + same + ": each name needs a token "
              + "of its own");
        }
        all.add(new Named(name, role, digest));
      }
    }
    boolean reads;
    try {
      reads = config.hasPath("almanac.http.read-requires-token") && config.getBoolean("almanac.http.read-requires-token");
    } catch (ConfigException e) {
      throw new InvalidSpecException("almanac.http.read-requires-token",
          config.getValue("almanac.http.read-requires-token").unwrapped(), "must be on or off");
    }
    if (reads && all.isEmpty()) {
      throw new InvalidSpecException("almanac.http.read-requires-token", true, "is on while no token is configured "
          + "(almanac.http.token, almanac.http.tokens): every read would be refused");
    }
    return new Tokens(all, reads);
  }

  private static String quoted(String name) {
    return name.matches("[A-Za-z0-9_-]+") ? name : "\"" + name + "\"";
  }

  private static void checkToken(String key, String token, boolean emptyAllowed) {
    if (token.isEmpty() && !emptyAllowed) {
      throw InvalidSpecException.withoutValue(key, "is empty: set a token of at least " + AlmanacHttp.Settings.MIN_TOKEN_LENGTH
          + " characters (e.g. token = ${?ALICE_TOKEN}), or take the entry out");
    }
    if (token.isBlank()) {
      // the token's value is never echoed: only its length
      throw InvalidSpecException.withoutValue(key, "is blank (" + token.length() + " white-space characters): set a token of "
          + "at least " + AlmanacHttp.Settings.MIN_TOKEN_LENGTH + " characters"
          + (emptyAllowed ? ", or leave it empty to refuse every mutating call" : ""));
    }
    if (token.length() < AlmanacHttp.Settings.MIN_TOKEN_LENGTH) {
      throw InvalidSpecException.withoutValue(key, "is " + token.length() + " characters long: it must have at least "
          + AlmanacHttp.Settings.MIN_TOKEN_LENGTH + " (e.g. openssl rand -base64 24)");
    }
  }

  private static String string(Config config, String key) {
    try {
      return config.getString(key);
    } catch (ConfigException.Missing e) {
      throw InvalidSpecException.missing(key, "this module's reference.conf sets it: is it on the class path?");
    } catch (ConfigException e) {
      throw InvalidSpecException.withoutValue(key, "must be a string");
    }
  }

  private static String string(Config entry, String path, String key) {
    try {
      return entry.getString(path);
    } catch (ConfigException e) {
      throw InvalidSpecException.withoutValue(key, "must be a string");
    }
  }

  static byte[] sha256(String text) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  private static String hex(byte[] digest) {
    StringBuilder b = new StringBuilder();
    for (byte x : digest) {
      b.append(String.format(Locale.ROOT, "%02x", x));
    }
    return b.toString();
  }
}
