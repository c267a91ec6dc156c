package io.sluice.server.controller;

import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import io.sluice.errors.RetriableException;
import io.sluice.errors.StreamingInterruptedException;

/**
 * How a controller handler's outcome becomes a gRPC answer: its result, or its exception mapped to a status (a
 * {@link StatusRuntimeException} as it is, {@link RetriableException} UNAVAILABLE,
 * {@link StreamingInterruptedException} CANCELLED, any other runtime exception INTERNAL, logged).
 */
final class GrpcResponses {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedControllerService.class);

    private GrpcResponses() {
    }

    /** Runs a handler and answers {@code observer} with its result or its failure's status. */
    static <T> void respond(StreamObserver<T> observer, Supplier<T> handler) {
        T result;
        try {
            result = handler.get();
        } catch (RuntimeException e) {
            observer.onError(toStatus(e));
            return;
        }
        observer.onNext(result);
        observer.onCompleted();
    }

    /** @return the status a handler's failure is answered with */
    static StatusRuntimeException toStatus(RuntimeException e) {
        if (e instanceof StatusRuntimeException status) {
            return status;
        }
        if (e instanceof RetriableException) {
            return Status.UNAVAILABLE.withDescription(e.getMessage()).withCause(e).asRuntimeException();
        }
        if (e instanceof StreamingInterruptedException) {
            return Status.CANCELLED.withDescription(e.getMessage()).asRuntimeException();
        }
        LOG.error("controller call failed", e);
        return Status.INTERNAL.withDescription(e.toString()).withCause(e).asRuntimeException();
    }
}
