package io.almanac.http;

import java.util.concurrent.CompletionStage;

/**
 * Where {@code GET /api/windows} finds windows: today the Java API ({@link AlmanacWindowSource}),
 * later the SQL instance table. An implementation filters by {@link WindowFilter#matches}, orders by
 * {@link WindowFilter#ORDER} (start, task, window key) and pages by the keyset cursor {@link
 * WindowFilter#after()}: a page holds the first {@link WindowFilter#limit()} windows after the
 * cursor, and its {@code next} is the cursor of its last window when more follow, else null.
 */
@FunctionalInterface
public interface WindowSource {

  /**
   * @param filter the checked filter
   * @return one page of windows; failed with an {@link io.almanac.AlmanacException} (or a timeout)
   *     when the node cannot answer
   */
  CompletionStage<WindowPage> find(WindowFilter filter);
}
