package io.almanac.internal.protocol;

/**
 * Marker for everything Almanac persists or sends between nodes: commands, events, snapshots,
 * replies. {@code reference.conf} binds it to Jackson (JSON, so the journal stays readable for
 * audit). INTERNAL API.
 */
public interface AlmanacSerializable {}
