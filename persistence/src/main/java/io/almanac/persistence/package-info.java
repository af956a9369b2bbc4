/**
 * Journal wiring for Almanac: the includable {@code almanac-h2.conf} (embedded default, one H2
 * file) and {@code almanac-postgres.conf} (production, every node on one PostgreSQL, one small
 * pool per node), the schema bootstrap and the module's settings. Audit replay and read models
 * follow.
 */
package io.almanac.persistence;
