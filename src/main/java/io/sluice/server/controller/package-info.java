/**
 * The embedded controller: Pravega's {@code ControllerService} gRPC API for the embedded server
 * ({@link io.sluice.server.controller.EmbeddedControllerService}).
 *
 * <h2>Structure</h2>
 * <ul>
 *   <li>{@code EmbeddedControllerService}: the gRPC service; it hands each call to the handler class of its area
 *       ({@code ScopeStreamHandlers}, {@code SegmentScaleHandlers}, {@code TransactionHandlers},
 *       {@code ReaderGroupHandlers}, {@code KeyValueTableHandlers}, {@code DiscoveryHandlers}), which checks rights
 *       ({@code Authorizer}) and issues tokens ({@code TokenIssuer}); {@code GrpcResponses} maps outcomes to gRPC
 *       statuses, {@code ControllerTimers} runs the lease and watermark timers (docs/embedded-server.md).</li>
 *   <li>{@code ControllerCore}: the operations (Pravega 0.13 semantics), a facade over its parts, each a class of
 *       its own around a shared {@code ControllerContext} (journal, serial keys, segment admin, clock, settings):
 *       {@code Scopes}, {@code Streams}, {@code Scaling}, {@code Truncation}, {@code Transactions} (with
 *       {@code TxnCompletion}), {@code WriterMarks}, {@code ReaderGroups}, {@code KeyValueTables}, {@code Recovery}.
 *       Changes to one stream, reader group, key-value table or scope run one at a time on that entity's key of
 *       {@code SerialExecutors}, so multi-step changes never interleave and no lock is held across segment store
 *       calls.</li>
 *   <li>{@code Journal} + {@code ControllerModel}: all metadata is the result of applying
 *       {@link io.sluice.server.controller.ControllerEvent}s in order; a change is decided and applied under one
 *       lock, handed to the {@link io.sluice.server.controller.ControllerStore} (which only queues it) and waited
 *       for outside the lock.</li>
 * </ul>
 *
 * <h2>Persistence</h2>
 * Every change is a {@code ControllerEvent}; {@link io.sluice.server.controller.ControllerEventCodec} encodes it.
 * A durable store logs the encoded events to a write log (group commit; {@code append} must not block) and returns
 * them from {@code recover()} after a restart; the controller replays them and then finishes any operation the log
 * shows as started but not completed (stream creation, scale, rolling transaction, truncation, seal, deletion,
 * commit, abort, reader group / table / recursive scope deletion). Segment store calls are idempotent for that.
 * Snapshots can be a compacted event list.
 *
 * <h2>Names and numbers</h2>
 * Segment ids are {@code (epoch << 32) | number}; new segments of a scale get the numbers after the highest the
 * stream has used; a stream or table recreated under an old name continues after its predecessor's numbers. Every
 * stream created through the API gets a watermark stream {@code _MARK<stream>} (reader group state streams
 * {@code _RG<group>} too), deleted with it; listings include internal streams. Scope and stream names follow
 * Pravega's controller-side rule (an optional leading {@code _} for internal names, then letters, digits, '.',
 * '-', at most 255 characters); reader group and table names the user rule (no {@code _}, at most 250).
 *
 * <h2>Transactions</h2>
 * A transaction writes to {@code <segment>#transaction.<32 hex>} segments named with the transaction's epoch.
 * Commit requests are merged one transaction at a time, lowest epoch first and in commit-request order within an
 * epoch (Pravega's order); a transaction whose epoch's segments were sealed by a scale is rolled over into copies
 * of that epoch, as Pravega's rolling transactions do. Leases are checked by a timer thread
 * ({@link io.sluice.server.controller.ControllerSettings#leaseCheckInterval()}).
 *
 * <h2>Watermarks</h2>
 * Writers' marks ({@code noteTimestampFromWriter}, and each committed transaction that names its writer) are in the
 * journal; {@code Watermarks} turns them into watermarks on a timer
 * ({@link io.sluice.server.controller.ControllerSettings#watermarkInterval()}, 10 s as in Pravega), with Pravega
 * 0.13's {@code PeriodicWatermarking} rules, and appends each to {@code _MARK<stream>} in Pravega's byte format
 * ({@link io.sluice.wire.Watermark}). {@code removeWriter} marks a writer shut down, as Pravega's
 * {@code shutdownWriter}: its mark counts while it is ahead of the last watermark, then a pass drops it. See
 * docs/watermarks.md.
 *
 * <h2>Authentication</h2>
 * Off by default. When on, calls need {@code authorization: Basic base64(user:password)} checked against a
 * {@link io.sluice.server.controller.PasswordFile} ({@code user:pbkdf2-sha256$iter$salt$hash:acl} lines, made with
 * {@code PasswordFile.entry}); permissions come from each user's
 * {@link io.sluice.server.controller.AccessControlList} (in Sluice's short patterns or Pravega's {@code prn::}
 * resource names), checked per RPC by Pravega 0.13's rules; delegation tokens are HS256 JWTs from
 * {@link io.sluice.server.auth.DelegationTokens}. docs/security.md has the table of what each call needs.
 *
 * <h2>Where this differs from Pravega</h2>
 * Malformed requests that make Pravega fail with INTERNAL or UNKNOWN (which its client retries) are answered with
 * INVALID_ARGUMENT; creating a transaction on a sealed stream with FAILED_PRECONDITION. Scales run to completion
 * within the {@code scale} call ({@code checkScale} then reports SUCCESS). {@code getSegments} returns the head
 * whatever the timestamp, as Pravega 0.13 does. The watermark passes remember a stream's last watermark instead
 * of reading it back from its {@code _MARK} segment on every pass. Completed transactions are remembered per stream up to 1000.
 */
package io.sluice.server.controller;
