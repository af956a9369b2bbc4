/** INTERNAL API: the messages that cross actors (each actor's sealed protocol), their serializer binding and the ask helper. Imports nothing of io.almanac.internal. */
package io.almanac.internal.protocol;
