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
 *       {@code _RG<group>}, written with {@link io.sluice.readergroup.RecordOutput} and read with
 *       {@link io.sluice.readergroup.RecordInput};</li>
 *   <li>{@link io.sluice.readergroup.Membership}: the decisions a reader takes over the state — its fair share, which
 *       segments to acquire and which to give back (release first), when another reader is offline, who leads the
 *       group, when an automatic checkpoint is due — and the updates that carry them out, as pure functions of the
 *       state, the reader and the time.</li>
 * </ul>
 *
 * <p>The state lives in a {@link io.sluice.segment.StateSynchronizer} over the state stream's single segment; the
 * client package opens it and drives its readers with these decisions. This package uses {@code segment} (for the
 * synchronizer's codec interface) and the public value types of {@code stream}; it knows nothing of connections, the
 * wire codec or the client.
 */
package io.sluice.readergroup;
