/**
 * What Almanac's store modules (the persistence module's journal plugin and instance projection)
 * report into the node they run in, so that they depend on a small published interface and never on
 * the runtime's internals. Not for applications: their API is {@link io.almanac}.
 */
package io.almanac.spi;
