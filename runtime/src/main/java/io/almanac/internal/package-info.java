/** INTERNAL API: actors, cron and window arithmetic, serialization. Not for use outside Almanac. */
package io.almanac.internal;
