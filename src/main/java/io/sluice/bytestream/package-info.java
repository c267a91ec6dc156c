/**
 * Byte streams: a stream of one segment read and written as raw bytes, without events, through
 * {@link io.sluice.bytestream.ByteStreamWriter} (an {@link java.io.OutputStream}) and
 * {@link io.sluice.bytestream.ByteStreamReader} (an {@link java.io.InputStream}). The bytes are the same ones
 * Pravega's {@code ByteStreamClientFactory} writes and reads, so either client reads what the other wrote.
 */
package io.sluice.bytestream;
