/**
 * The resource pools as sharded persistent entities: {@link io.almanac.internal.pool.PoolEntity}
 * (one writer per pool across the cluster, its state folded by {@link io.almanac.journal.PoolState})
 * and {@link io.almanac.internal.pool.JournalPoolStore}, the executors' {@link
 * io.almanac.spi.PoolStore} that asks them. Uses only the protocol package. INTERNAL API.
 */
package io.almanac.internal.pool;
