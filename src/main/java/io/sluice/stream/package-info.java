/**
 * Streams: names, segments, stream cuts, stream and reader group configuration, transactions.
 */
package io.sluice.stream;
