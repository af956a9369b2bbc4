package io.almanac.journal;

import java.util.Objects;

/**
 * Who wrote a journal event: the node, its incarnation and the cluster it was in. It is not part of
 * any event: the persistence module's journal ({@code io.almanac.persistence.WriterStampingJournal})
 * attaches it to every event it writes as Pekko Persistence <i>event metadata</i>, which
 * pekko-persistence-jdbc stores in the journal table's {@code meta_payload}, {@code meta_ser_id} and
 * {@code meta_ser_manifest} columns of the same row (no extra row, no change to any event's JSON)
 * and returns with the event ({@code EventEnvelope.eventMetadata}). The audit's invariant I5 (one
 * writer per task at a time) reads it. Events written before it existed, or through another journal
 * plugin, have none: the audit counts them as written by an unknown writer.
 *
 * <p>Serialized as JSON like the events ({@link JournalSerializable}), e.g. {@code
 * {"node":"pekko://almanac@10.0.0.7:7355","incarnation":-4395839463578135616,
 * "cluster":"pekko://almanac@10.0.0.5:7355#8801398120923451235"}}.
 *
 * @param node the node's address, e.g. {@code pekko://almanac@10.0.0.7:7355} ({@code
 *     pekko://almanac} on a system without remoting)
 * @param incarnation the node's incarnation: the uid of its cluster {@code UniqueAddress} (Pekko's
 *     {@code AddressUidExtension}, a random long per ActorSystem), so a node restarted at the same
 *     address is another writer
 * @param cluster the cluster the node was a member of when it wrote, named by its oldest member as
 *     this node saw it ({@code address#uid} of the oldest member Up, Leaving or Exiting: where the
 *     cluster singletons run); null without a cluster, or before the node had joined one. One cluster
 *     names a new oldest only when its oldest leaves, and never an earlier one again, so two
 *     clusters writing to one journal show as two cluster names that interleave.
 */
public record WriterStamp(String node, long incarnation, String cluster) implements JournalSerializable {

  /** Refuses a missing node. */
  public WriterStamp {
    Objects.requireNonNull(node, "node");
  }

  /**
   * A writer outside any cluster.
   *
   * @param node the node's address
   * @param incarnation the node's incarnation
   */
  public WriterStamp(String node, long incarnation) {
    this(node, incarnation, null);
  }

  /**
   * @param cluster the cluster's name (its oldest member), or null
   * @return this writer in that cluster
   */
  public WriterStamp inCluster(String cluster) {
    return Objects.equals(cluster, this.cluster) ? this : new WriterStamp(node, incarnation, cluster);
  }

  /**
   * @return the node and its incarnation, e.g. {@code pekko://almanac@10.0.0.7:7355#-4395839463578135616},
   *     the form of a cluster {@code UniqueAddress} in Pekko's logs
   */
  public String nodeIncarnation() {
    return node + "#" + incarnation;
  }

  /**
   * @return e.g. {@code pekko://almanac@10.0.0.7:7355#-4395839463578135616 (cluster of
   *     pekko://almanac@10.0.0.5:7355#8801398120923451235)}
   */
  @Override
  public String toString() {
    return nodeIncarnation() + (cluster == null ? "" : " (cluster of " + cluster + ")");
  }
}
