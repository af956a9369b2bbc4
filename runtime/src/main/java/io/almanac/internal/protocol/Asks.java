package io.almanac.internal.protocol;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.Scheduler;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import scala.concurrent.ExecutionContext;
import scala.jdk.javaapi.FutureConverters;
import scala.runtime.AbstractFunction1;
import scala.util.Try;

/**
 * The ask pattern, answered on a plain {@link CompletableFuture} that is completed on the thread
 * that delivers the reply.
 *
 * <p>Why not {@link AskPattern#ask} as it is: it wraps a Scala future in a {@code CompletionStage}
 * whose every dependent stage ({@code handle}, {@code thenApply}, and so the typed
 * {@code ActorContext.pipeToSelf} and {@code ActorContext.ask}) runs <em>asynchronously</em> on
 * {@code ForkJoinPool.commonPool()}; on a machine with 2 cores the common pool's parallelism is 1,
 * and the JDK then starts a new thread for every such stage. Measured here: about 6,000 threads
 * started for a burst of 1,000 fires, half the burst throughput. The future returned here runs its
 * dependents synchronously, like any {@code CompletableFuture}: keep them short and non-blocking.
 *
 * INTERNAL API.
 */
public final class Asks {

  /** Runs a callback on the thread that completes the future (it only completes another future). */
  private static final ExecutionContext SAME_THREAD = ExecutionContext.fromExecutor(Runnable::run);

  private Asks() {}

  /**
   * Sends the request made by {@code create} (given the reply-to reference) and answers with the
   * reply, or fails with a {@code TimeoutException} after {@code timeout}.
   *
   * @param target who is asked
   * @param create makes the request from the reference the reply goes to
   * @param timeout how long to wait for the reply
   * @param scheduler the actor system's scheduler
   * @param <Req> the request's type
   * @param <Res> the reply's type
   * @return the reply, completed on the replying thread
   */
  public static <Req, Res> CompletableFuture<Res> ask(
      RecipientRef<Req> target, Function<ActorRef<Res>, Req> create, Duration timeout, Scheduler scheduler) {
    // a timer longer than the scheduler's wheel (about 248 days) throws: an ask waits at most a day
    Duration wait = timeout.compareTo(io.almanac.spi.Saturating.MAX_TIMER_DELAY) > 0 ? io.almanac.spi.Saturating.MAX_TIMER_DELAY
        : timeout;
    CompletionStage<Res> stage = AskPattern.ask(target, create::apply, wait, scheduler);
    // The stage wraps a Scala future; unwrap it and complete a plain future from it directly.
    scala.concurrent.Future<Res> future = FutureConverters.asScala(stage);
    CompletableFuture<Res> out = new CompletableFuture<>();
    future.onComplete(new AbstractFunction1<Try<Res>, Object>() {
      @Override
      public Object apply(Try<Res> result) {
        if (result.isSuccess()) {
          out.complete(result.get());
        } else {
          out.completeExceptionally(result.failed().get());
        }
        return null;
      }
    }, SAME_THREAD);
    return out;
  }
}
