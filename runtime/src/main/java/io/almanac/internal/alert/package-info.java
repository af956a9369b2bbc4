/**
 * The alert history: the cluster's one event-sourced owner of what alerts fired and where they were
 * delivered ({@link io.almanac.internal.alert.AlertLogEntity}), and each node's recorder that batches
 * what its sinks report to it. INTERNAL API.
 */
package io.almanac.internal.alert;
