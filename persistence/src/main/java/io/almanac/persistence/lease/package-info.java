/**
 * A Pekko Coordination lease kept in the journal's own database: {@link
 * io.almanac.persistence.lease.JdbcLease}, configured under {@code almanac.lease.jdbc}, its table
 * created by {@link io.almanac.persistence.SchemaBootstrap}.
 */
package io.almanac.persistence.lease;
