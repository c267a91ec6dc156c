package io.sluice.connection;

import io.sluice.errors.ConnectionFailedException;
import io.sluice.errors.SluiceException;
import io.sluice.wire.Reply;

/** What a flow's queue receives: a reply, or the news that the connection is gone. */
sealed interface Delivery {

    /** @param reply a reply carrying the flow's id */
    record Received(Reply reply) implements Delivery {
    }

    /**
     * @param reason why the connection ended, for messages
     * @param cause the failure behind it ({@code null} for an orderly close); a non-retriable
     *     {@link SluiceException} here is rethrown as such
     */
    record Dropped(String reason, Throwable cause) implements Delivery {

        /** @return the exception a waiting caller receives: retriable unless the cause is a terminal Sluice failure */
        SluiceException toException() {
            if (cause instanceof SluiceException s && !(s instanceof io.sluice.errors.RetriableException)
                    && !(s instanceof io.sluice.errors.ProtocolException)) {
                return s;
            }
            return new ConnectionFailedException(reason, cause);
        }
    }
}
