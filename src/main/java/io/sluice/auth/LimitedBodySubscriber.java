package io.sluice.auth;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

import io.sluice.errors.ProtocolException;

/**
 * Collects an HTTP response body into a byte array, but gives up (cancels the exchange) once it passes a size limit,
 * so a misbehaving server cannot make the client buffer an unbounded answer.
 *
 * <p>Used by one exchange at a time: the HTTP client calls the {@link Flow.Subscriber} methods one after another
 * (Reactive Streams rule 1.3), so the fields need no locking.
 */
final class LimitedBodySubscriber implements HttpResponse.BodySubscriber<byte[]> {
    private final int maxBytes;
    private final String source;
    private final CompletableFuture<byte[]> result = new CompletableFuture<>();
    // confined to the subscriber callbacks (serialised by the publisher)
    private final List<byte[]> chunks = new ArrayList<>();
    private Flow.Subscription subscription;
    private long size;

    /**
     * @param maxBytes the largest body accepted
     * @param source what answers, for the message
     */
    LimitedBodySubscriber(int maxBytes, String source) {
        this.maxBytes = maxBytes;
        this.source = source;
    }

    /**
     * @param maxBytes the largest body accepted
     * @param source what answers, for the message
     * @return a handler giving each response a new limited subscriber
     */
    static HttpResponse.BodyHandler<byte[]> handler(int maxBytes, String source) {
        return info -> new LimitedBodySubscriber(maxBytes, source);
    }

    @Override
    public CompletionStage<byte[]> getBody() {
        return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> buffers) {
        if (result.isDone()) {
            return;
        }
        for (ByteBuffer buffer : buffers) {
            size += buffer.remaining();
            if (size > maxBytes) {
                subscription.cancel();
                chunks.clear();
                result.completeExceptionally(new ProtocolException(
                        source + " sent a response body larger than " + maxBytes + " bytes"));
                return;
            }
            byte[] chunk = new byte[buffer.remaining()];
            buffer.get(chunk);
            chunks.add(chunk);
        }
    }

    @Override
    public void onError(Throwable failure) {
        result.completeExceptionally(failure);
    }

    @Override
    public void onComplete() {
        byte[] body = new byte[(int) size];
        int at = 0;
        for (byte[] chunk : chunks) {
            System.arraycopy(chunk, 0, body, at, chunk.length);
            at += chunk.length;
        }
        chunks.clear();
        result.complete(body);
    }
}
