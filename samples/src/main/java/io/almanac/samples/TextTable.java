package io.almanac.samples;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A plain text table with aligned columns, for the {@code almanac} command's human output. */
final class TextTable {
  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();
  private final int maxWidth;

  /**
   * @param maxWidth the widest a cell may be (longer cells are cut with "...")
   * @param header the column names
   */
  TextTable(int maxWidth, String... header) {
    this.header = Arrays.asList(header);
    this.maxWidth = maxWidth;
  }

  /**
   * @param cells one cell per column (null prints as "-")
   * @return this
   */
  TextTable row(String... cells) {
    List<String> r = new ArrayList<>();
    for (String c : cells) {
      r.add(c == null || c.isEmpty() ? "-" : LiveTable.shorten(c, maxWidth));
    }
    rows.add(r);
    return this;
  }

  /** @return how many rows */
  int size() {
    return rows.size();
  }

  /**
   * Prints the header and the rows; the last column is not padded.
   *
   * @param out where
   */
  void print(PrintWriter out) {
    int[] widths = new int[header.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = header.get(i).length();
      for (List<String> r : rows) {
        widths[i] = Math.max(widths[i], i < r.size() ? r.get(i).length() : 0);
      }
    }
    line(out, header, widths);
    for (List<String> r : rows) {
      line(out, r, widths);
    }
    out.flush();
  }

  private static void line(PrintWriter out, List<String> cells, int[] widths) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < widths.length; i++) {
      String c = i < cells.size() ? cells.get(i) : "";
      b.append(c);
      if (i < widths.length - 1) {
        b.append(" ".repeat(widths[i] - c.length() + 2));
      }
    }
    out.println(b.toString().stripTrailing());
  }
}
