package io.almanac.bench;

import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/** Just enough JSON to print one line per run (and to read it back in the parent). */
final class Json {
  private Json() {}

  static String write(Object o) {
    StringBuilder b = new StringBuilder();
    write(b, o);
    return b.toString();
  }

  private static void write(StringBuilder b, Object o) {
    if (o == null) {
      b.append("null");
    } else if (o instanceof Map<?, ?> m) {
      b.append('{');
      Iterator<? extends Map.Entry<?, ?>> it = m.entrySet().iterator();
      while (it.hasNext()) {
        Map.Entry<?, ?> e = it.next();
        str(b, String.valueOf(e.getKey()));
        b.append(':');
        write(b, e.getValue());
        if (it.hasNext()) {
          b.append(',');
        }
      }
      b.append('}');
    } else if (o instanceof Collection<?> c) {
      b.append('[');
      Iterator<?> it = c.iterator();
      while (it.hasNext()) {
        write(b, it.next());
        if (it.hasNext()) {
          b.append(',');
        }
      }
      b.append(']');
    } else if (o instanceof Double d) {
      if (d.isNaN() || d.isInfinite()) {
        b.append("null");
      } else {
        b.append(Math.round(d * 1000.0) / 1000.0);
      }
    } else if (o instanceof Number || o instanceof Boolean) {
      b.append(o);
    } else {
      str(b, o.toString());
    }
  }

  private static void str(StringBuilder b, String s) {
    b.append('"');
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }

  /** Parses a flat-ish JSON object (nested objects allowed) into maps, lists, strings, doubles. */
  static Map<String, Object> parse(String s) {
    int[] pos = {0};
    Object o = value(s, pos);
    @SuppressWarnings("unchecked")
    Map<String, Object> m = (Map<String, Object>) o;
    return m;
  }

  private static void ws(String s, int[] p) {
    while (p[0] < s.length() && Character.isWhitespace(s.charAt(p[0]))) {
      p[0]++;
    }
  }

  private static Object value(String s, int[] p) {
    ws(s, p);
    char c = s.charAt(p[0]);
    if (c == '{') {
      p[0]++;
      Map<String, Object> m = new LinkedHashMap<>();
      ws(s, p);
      if (s.charAt(p[0]) == '}') {
        p[0]++;
        return m;
      }
      while (true) {
        ws(s, p);
        String k = (String) value(s, p);
        ws(s, p);
        p[0]++; // :
        m.put(k, value(s, p));
        ws(s, p);
        char d = s.charAt(p[0]++);
        if (d == '}') {
          return m;
        }
      }
    }
    if (c == '[') {
      p[0]++;
      java.util.List<Object> l = new java.util.ArrayList<>();
      ws(s, p);
      if (s.charAt(p[0]) == ']') {
        p[0]++;
        return l;
      }
      while (true) {
        l.add(value(s, p));
        ws(s, p);
        char d = s.charAt(p[0]++);
        if (d == ']') {
          return l;
        }
      }
    }
    if (c == '"') {
      StringBuilder b = new StringBuilder();
      p[0]++;
      while (true) {
        char d = s.charAt(p[0]++);
        if (d == '"') {
          return b.toString();
        }
        if (d == '\\') {
          char e = s.charAt(p[0]++);
          switch (e) {
            case 'n' -> b.append('\n');
            case 't' -> b.append('\t');
            case 'r' -> b.append('\r');
            case 'u' -> {
              b.append((char) Integer.parseInt(s.substring(p[0], p[0] + 4), 16));
              p[0] += 4;
            }
            default -> b.append(e);
          }
        } else {
          b.append(d);
        }
      }
    }
    int start = p[0];
    while (p[0] < s.length() && ",}] \n".indexOf(s.charAt(p[0])) < 0) {
      p[0]++;
    }
    String tok = s.substring(start, p[0]);
    return switch (tok) {
      case "null" -> null;
      case "true" -> Boolean.TRUE;
      case "false" -> Boolean.FALSE;
      default -> Double.parseDouble(tok);
    };
  }
}
