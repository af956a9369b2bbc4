/** INTERNAL API: a node's executor and its pure parts: admission to job slots, pacing, the fence hold, result reports and the job threads' actor-free context. */
package io.almanac.internal.executor;
