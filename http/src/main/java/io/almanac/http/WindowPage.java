package io.almanac.http;

import io.almanac.WindowView;
import java.util.List;

/**
 * One page of {@code GET /api/windows}.
 *
 * @param windows the windows, in the filter's order ({@link WindowFilter#order()})
 * @param next the cursor to pass as {@code after} for the next page ({@link WindowFilter.Cursor#encode()}), or
 *     null when this is the last page
 */
public record WindowPage(List<WindowView> windows, String next) {

  /** Copies the list. */
  public WindowPage {
    windows = List.copyOf(windows);
  }

  /**
   * Cuts a page from windows already filtered and sorted in the filter's order ({@link
   * WindowFilter#order()}), after the filter's cursor.
   *
   * @param sorted every matching window, sorted
   * @param filter the filter (its cursor and limit)
   * @return the page
   */
  public static WindowPage of(List<WindowView> sorted, WindowFilter filter) {
    List<WindowView> after = filter.after() == null ? sorted
        : sorted.stream().filter(w -> filter.after().precedes(w, filter.descending())).toList();
    if (after.size() <= filter.limit()) {
      return new WindowPage(after, null);
    }
    List<WindowView> page = after.subList(0, filter.limit());
    return new WindowPage(page, WindowFilter.Cursor.of(page.get(page.size() - 1), filter.byUpdated()).encode());
  }
}
