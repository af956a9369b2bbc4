/**
 * INTERNAL API: the actors and the pure classes they ask, in packages that import one way (see
 * docs/architecture.md): {@code node} wires {@code task}, {@code trigger} and {@code executor},
 * which share {@code meter}, {@code lease} and {@code protocol}; the executor also uses {@code trace}. Not for use outside Almanac.
 */
package io.almanac.internal;
