/**
 * Journal wiring for Almanac: the includable {@code almanac-h2.conf} (embedded default, one H2
 * file), the schema bootstrap and the module's settings. Audit replay and read models follow.
 */
package io.almanac.persistence;
