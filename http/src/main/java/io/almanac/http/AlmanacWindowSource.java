package io.almanac.http;

import io.almanac.Almanac;
import io.almanac.RefusedException;
import io.almanac.WindowView;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * {@link WindowSource} over the Java API: the hot windows of every registered task ({@link
 * Almanac#taskIds()}, {@link Almanac#windows(String)}), filtered, sorted and cut into pages in
 * memory. It sees no archived window, nor a removed task's. A filter on a task that is not
 * registered finds no window (and starts no entity).
 */
public final class AlmanacWindowSource implements WindowSource {

  private final Almanac almanac;

  /** @param almanac the node */
  public AlmanacWindowSource(Almanac almanac) {
    this.almanac = almanac;
  }

  @Override
  public CompletionStage<WindowPage> find(WindowFilter filter) {
    // Only registered tasks are asked: a filter naming another id finds no window and starts no entity.
    CompletionStage<List<String>> ids = almanac.taskIds().thenApply(all -> filter.task() == null ? all
        : all.contains(filter.task()) ? List.of(filter.task()) : List.of());
    return ids.thenCompose(list -> {
      List<CompletableFuture<List<WindowView>>> all = new ArrayList<>();
      for (String id : list) {
        all.add(almanac.windows(id).toCompletableFuture().exceptionally(e -> {
          Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
          if (cause instanceof RefusedException r && r.reason() == RefusedException.Reason.UNKNOWN_TASK) {
            return List.of();
          }
          throw e instanceof CompletionException c ? c : new CompletionException(e);
        }));
      }
      return CompletableFuture.allOf(all.toArray(new CompletableFuture[0])).thenApply(v -> {
        List<WindowView> matching = new ArrayList<>();
        for (CompletableFuture<List<WindowView>> f : all) {
          f.join().stream().filter(filter::matches).forEach(matching::add);
        }
        matching.sort(filter.order());
        return WindowPage.of(matching, filter);
      });
    });
  }
}
