/**
 * Test utilities for code that uses Almanac: a {@link io.almanac.testkit.SettableClock} to hand to
 * {@code Almanac.builder(system).clock(...)} so a test decides when windows open. Use it in test
 * scope only (artifact {@code io.almanac:almanac-testkit}); it depends only on the JDK.
 */
package io.almanac.testkit;
