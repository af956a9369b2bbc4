/**
 * Almanac's public API: the entry point, task specifications, triggers and windows, policies, the
 * job SPI and the views an operator sees. Everything under {@code io.almanac.internal} is internal.
 */
package io.almanac;
