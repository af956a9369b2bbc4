/** INTERNAL API: what a node counts and logs: its meters, the skip summary, the message tap for tests and the MDC keys. */
package io.almanac.internal.meter;
