package io.almanac.journal;

import java.util.Objects;

/**
 * Who wrote a journal event: the node and its incarnation. It is not part of any event: the
 * persistence module's journal ({@code io.almanac.persistence.WriterStampingJournal}) attaches it to
 * every event it writes as Pekko Persistence <i>event metadata</i>, which pekko-persistence-jdbc
 * stores in the journal table's {@code meta_payload}, {@code meta_ser_id} and {@code
 * meta_ser_manifest} columns of the same row (no extra row, no change to any event's JSON) and
 * returns with the event ({@code EventEnvelope.eventMetadata}). The audit's invariant I5 (one
 * writer per task at a time) reads it. Events written before it existed, or through another journal
 * plugin, have none: the audit counts them as written by an unknown writer.
 *
 * <p>Serialized as JSON like the events ({@link JournalSerializable}), e.g. {@code
 * {"node":"pekko://almanac@10.0.0.7:7355","incarnation":-4395839463578135616}}.
 *
 * @param node the node's address, e.g. {@code pekko://almanac@10.0.0.7:7355} ({@code
 *     pekko://almanac} on a system without remoting)
 * @param incarnation the node's incarnation: the uid of its cluster {@code UniqueAddress} (Pekko's
 *     {@code AddressUidExtension}, a random long per ActorSystem), so a node restarted at the same
 *     address is another writer
 */
public record WriterStamp(String node, long incarnation) implements JournalSerializable {

  /** Refuses a missing node. */
  public WriterStamp {
    Objects.requireNonNull(node, "node");
  }

  /**
   * @return e.g. {@code pekko://almanac@10.0.0.7:7355#-4395839463578135616}, the form of a cluster
   *     {@code UniqueAddress} in Pekko's logs
   */
  @Override
  public String toString() {
    return node + "#" + incarnation;
  }
}
