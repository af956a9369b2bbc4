/**
 * The resource pools' counts in the journal's database ({@link io.almanac.persistence.pools.JdbcPoolStore}),
 * so that a pool's limits hold across the cluster.
 */
package io.almanac.persistence.pools;
