package io.almanac.persistence.instances;

import java.util.List;
import java.util.Objects;

/**
 * One page of rows from {@link InstanceQueries#find(InstanceFilter)}.
 *
 * @param rows the rows, in the order (window start, task id, window key)
 * @param next the cursor of the next page (pass it as {@link InstanceFilter#after()}), or null when
 *     this page is the last
 */
public record InstancePage(List<InstanceRow> rows, String next) {

  /** Canonical constructor: the list is copied. */
  public InstancePage {
    rows = List.copyOf(Objects.requireNonNull(rows, "rows"));
  }
}
