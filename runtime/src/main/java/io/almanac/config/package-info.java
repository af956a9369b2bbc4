/**
 * Reading Almanac's configuration: each value by its full key, a missing or wrong one refused with
 * an {@link io.almanac.InvalidSpecException} that names the key. Published for Almanac's modules
 * that read their own {@code almanac.*} namespace, such as the persistence module's settings, so
 * they refuse bad values with the same messages as the runtime's.
 */
package io.almanac.config;
