package io.almanac.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.almanac.Almanac;
import io.almanac.EventTrigger;
import io.almanac.TaskSpec;
import io.almanac.testkit.SettableClock;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.Test;

/** docs/triggers.md: a refused event stores nothing. Two tasks on one type, one by arrival time, one by event time. */
class PublishRefusalTest {
  @Test
  @org.junit.jupiter.api.DisplayName("R9/R33: an event without eventTime, refused by one listening task, is stored by none")
  void eventWithoutTimeIsRefusedAndStoresNothing() throws Exception {
    ActorTestKit kit = ActorTestKit.create("publish-refusal", AlmanacHttpTest.config(""));
    try {
      Almanac almanac = Almanac.builder(kit.system()).clock(new SettableClock(Instant.parse("2026-11-30T00:30:00Z")))
          .job("block", ctx -> new CompletableFuture<>()).start();
      almanac.register(TaskSpec.builder("by-arrival").onEvent(EventTrigger.of("order.paid").byArrivalTime()).zone("UTC")
          .window("hourly").job("block").build()).toCompletableFuture().get(30, TimeUnit.SECONDS);
      almanac.register(TaskSpec.builder("by-time").onEvent(EventTrigger.of("order.paid")).zone("UTC")
          .window("hourly").job("block").build()).toCompletableFuture().get(30, TimeUnit.SECONDS);
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> almanac.publish("order.paid", "evt-1", null, null).toCompletableFuture().get(30, TimeUnit.SECONDS));
      org.junit.jupiter.api.Assertions.assertTrue(e.getCause().getMessage().startsWith("eventTime"), e.getCause().getMessage());
      assertEquals(List.of(), almanac.windows("by-arrival").toCompletableFuture().get(30, TimeUnit.SECONDS),
          "the refused event made a window in the task that maps by arrival time");
    } finally {
      kit.shutdownTestKit();
    }
  }
}
