/** INTERNAL API: a node's wiring and health: the actors' start, readiness checks, the trigger watchdog, the singleton locator and the default logging. */
package io.almanac.internal.node;
