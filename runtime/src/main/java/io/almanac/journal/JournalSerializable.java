package io.almanac.journal;

/**
 * Marks what Almanac writes to its journal (events and snapshots), serialized as JSON with Jackson
 * (bound in the runtime's reference.conf), so the journal stays readable for audit (R28).
 */
public interface JournalSerializable {}
