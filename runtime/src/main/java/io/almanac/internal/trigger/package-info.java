/** INTERNAL API: the cluster-singleton trigger and its pure parts: the due queue, delivery of fires, the watermark, event subscriptions and the dependency graph. */
package io.almanac.internal.trigger;
