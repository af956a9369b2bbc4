/** INTERNAL API: the task entity, a thin persistent shell, and the pure deciders it asks: fires, gates, events, attempts, operator actions and what follows a write. */
package io.almanac.internal.task;
