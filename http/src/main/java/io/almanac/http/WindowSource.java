package io.almanac.http;

import java.util.concurrent.CompletionStage;

/**
 * Where {@code GET /api/windows} finds windows: the SQL instance table ({@link InstanceWindowSource})
 * or the Java API's hot windows ({@link AlmanacWindowSource}). An implementation filters by {@link WindowFilter#matches}, orders by
 * {@link WindowFilter#order()} ({@link WindowFilter#ORDER}: start, task, window key; reversed for
 * {@code order=desc}) and pages by the keyset cursor {@link
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
