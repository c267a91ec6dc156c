package io.sluice.connection;

import io.sluice.errors.AlreadyExistsException;
import io.sluice.errors.AuthorizationException;
import io.sluice.errors.BadKeyVersionException;
import io.sluice.errors.InvalidRequestException;
import io.sluice.errors.NoSuchKeyException;
import io.sluice.errors.NoSuchSegmentException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.SegmentSealedException;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.TableSegmentNotEmptyException;
import io.sluice.errors.TokenExpiredException;
import io.sluice.errors.WrongHostException;
import io.sluice.wire.AuthTokenCheckFailed;
import io.sluice.wire.ErrorMessage;
import io.sluice.wire.ErrorReply;
import io.sluice.wire.InvalidEventNumber;
import io.sluice.wire.NoSuchSegment;
import io.sluice.wire.OperationUnsupported;
import io.sluice.wire.SegmentAlreadyExists;
import io.sluice.wire.SegmentIsSealed;
import io.sluice.wire.SegmentIsTruncated;
import io.sluice.wire.TableKeyBadVersion;
import io.sluice.wire.TableKeyDoesNotExist;
import io.sluice.wire.TableSegmentNotEmpty;
import io.sluice.wire.WrongHost;

/**
 * The one table from a segment store's error replies to Sluice exceptions. Stateless.
 */
public final class ReplyErrors {

    private ReplyErrors() {
    }

    /**
     * @param error the error reply
     * @return the exception a caller should see; messages name the segment and what the server said
     */
    public static SluiceException toException(ErrorReply error) {
        return switch (error) {
            case WrongHost e -> new WrongHostException("segment store does not own segment " + e.segment()
                    + (e.correctHost().isEmpty() ? "" : " (it says " + e.correctHost() + " does)"));
            case SegmentIsSealed e -> new SegmentSealedException("segment " + e.segment() + " is sealed");
            case SegmentAlreadyExists e -> new AlreadyExistsException("segment " + e.segment() + " already exists");
            case NoSuchSegment e -> new NoSuchSegmentException("segment " + e.segment() + " does not exist");
            case SegmentIsTruncated e -> new SegmentTruncatedException("segment " + e.segment() + " starts at offset "
                    + e.startOffset() + (e.offset() >= 0 ? ", before the requested offset " + e.offset() + " was truncated" : ""));
            case InvalidEventNumber e -> new ProtocolException("segment store rejected event number " + e.eventNumber()
                    + " of writer " + e.writerId());
            case OperationUnsupported e -> new ProtocolException("segment store does not support " + e.operationName());
            case AuthTokenCheckFailed e -> e.isTokenExpired()
                    ? new TokenExpiredException("the delegation token expired")
                    : new AuthorizationException("the segment store refused the delegation token");
            case ErrorMessage e -> e.errorCode() == ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION
                    ? new InvalidRequestException("segment store rejected an argument for " + e.segment() + ": " + e.message())
                    : new SluiceException("segment store error on " + e.segment() + ": " + e.message());
            case TableSegmentNotEmpty e -> new TableSegmentNotEmptyException("table segment " + e.segment() + " is not empty");
            case TableKeyDoesNotExist e -> new NoSuchKeyException("a key does not exist in table segment " + e.segment());
            case TableKeyBadVersion e -> new BadKeyVersionException("a key of table segment " + e.segment()
                    + " is not at the version the request named");
        };
    }
}
