/**
 * The reader-group state machine (internal): what a reader group's shared state is and how it changes, with no
 * threads and no I/O.
 *
 * <ul>
 *   <li>{@link io.sluice.readergroup.ReaderGroupState}: the state — online readers and what they own, unassigned,
 *       ended, finished and future segments, checkpoints — an immutable value;</li>
 *   <li>{@link io.sluice.readergroup.GroupUpdate}: the changes, applied in log order by
 *       {@link io.sluice.readergroup.ReaderGroupState#apply};</li>
 *   <li>{@link io.sluice.readergroup.GroupStateCodec}: their binary format in the group's state stream
 *       {@code _RG<group>}.</li>
 * </ul>
 *
 * <p>The state lives in a {@link io.sluice.segment.StateSynchronizer} over the state stream's single segment; the
 * client package opens it. This package uses {@code segment} (for the synchronizer's codec interface) and the
 * public value types of {@code stream}; it knows nothing of connections, the wire codec or the client.
 */
package io.sluice.readergroup;
