/**
 * Shared state with optimistic concurrency on a Pravega stream: {@link io.sluice.state.StateSynchronizer} (a state
 * every process changes through updates appended to a log) and the {@link io.sluice.state.RevisionedStreamClient}
 * under it (a log of values with conditional appends and a mark). Both store their data exactly as Pravega's Java
 * client does, so a Sluice process and an official-client process can share one stream. Obtain them from
 * {@link io.sluice.client.SluiceClient#newStateSynchronizer} and
 * {@link io.sluice.client.SluiceClient#newRevisionedStreamClient}; see docs/synchronizers.md.
 */
package io.sluice.state;
