/** INTERNAL API: leases: when an attempt's lease is over (the one owner of lease expiry), a node's executor fence lease and whether an attempt's executor may still run, and lease-guarded actors. */
package io.almanac.internal.lease;
