/**
 * The instance table (R29): an SQL table in the journal's database with one row per (task, window),
 * kept from the task journals by {@link io.almanac.persistence.instances.InstanceProjection}, queried
 * by operators through {@link io.almanac.persistence.instances.InstanceQueries}, rebuilt from the
 * journal by {@link io.almanac.persistence.instances.InstanceRebuild}, and thinned by retention into
 * a history table (R30). Settings: {@code almanac.instances} ({@link
 * io.almanac.persistence.instances.InstanceSettings}).
 *
 * <p>Tables (created by {@link io.almanac.persistence.SchemaBootstrap}):
 * <ul>
 *   <li>{@code almanac_instance}: the rows, primary key (task_id, window_key);
 *   <li>{@code almanac_instance_history}: rows moved by retention, with moved_at;
 *   <li>{@code almanac_instance_task}: the projection's memory of each task (its retry cap);
 *   <li>{@code almanac_projection_offset}: the journal ordering the projection has applied through,
 *       written in the same transaction as the rows.
 * </ul>
 */
package io.almanac.persistence.instances;
