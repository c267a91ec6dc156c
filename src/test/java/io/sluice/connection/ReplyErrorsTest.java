package io.sluice.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.UUID;

import io.sluice.common.Deadline;
import io.sluice.errors.AlreadyExistsException;
import io.sluice.errors.AuthorizationException;
import io.sluice.errors.BadKeyVersionException;
import io.sluice.errors.InvalidRequestException;
import io.sluice.errors.NoSuchKeyException;
import io.sluice.errors.NoSuchSegmentException;
import io.sluice.errors.ProtocolException;
import io.sluice.errors.RetriableException;
import io.sluice.errors.SegmentSealedException;
import io.sluice.errors.SegmentTruncatedException;
import io.sluice.errors.SluiceException;
import io.sluice.errors.TableSegmentNotEmptyException;
import io.sluice.errors.TokenExpiredException;
import io.sluice.errors.WrongHostException;
import io.sluice.wire.AuthTokenCheckFailed;
import io.sluice.wire.ErrorMessage;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.InvalidEventNumber;
import io.sluice.wire.NoSuchSegment;
import io.sluice.wire.OperationUnsupported;
import io.sluice.wire.SegmentAlreadyExists;
import io.sluice.wire.SegmentCreated;
import io.sluice.wire.SegmentIsSealed;
import io.sluice.wire.SegmentIsTruncated;
import io.sluice.wire.StreamSegmentInfo;
import io.sluice.wire.TableKeyBadVersion;
import io.sluice.wire.TableKeyDoesNotExist;
import io.sluice.wire.TableSegmentNotEmpty;
import io.sluice.wire.WrongHost;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Error replies become the right exceptions, with the segment named. */
@Timeout(20)
class ReplyErrorsTest {

    @Test
    void everyErrorReplyHasItsException() {
        assertThat(ReplyErrors.toException(new WrongHost(1, "s/t/0", "", ""))).isInstanceOf(WrongHostException.class)
                .isInstanceOf(RetriableException.class).hasMessageContaining("s/t/0");
        assertThat(ReplyErrors.toException(new SegmentIsSealed(1, "s/t/0", "", 5))).isInstanceOf(SegmentSealedException.class)
                .hasMessageContaining("s/t/0 is sealed");
        assertThat(ReplyErrors.toException(new SegmentAlreadyExists(1, "s/t/0", ""))).isInstanceOf(AlreadyExistsException.class);
        assertThat(ReplyErrors.toException(new NoSuchSegment(1, "s/t/0", "", -1))).isInstanceOf(NoSuchSegmentException.class)
                .hasMessage("segment s/t/0 does not exist");
        assertThat(ReplyErrors.toException(new SegmentIsTruncated(1, "s/t/0", 100, "", 40)))
                .isInstanceOf(SegmentTruncatedException.class).hasMessageContaining("starts at offset 100")
                .hasMessageContaining("40");
        assertThat(ReplyErrors.toException(new InvalidEventNumber(new UUID(1, 2), 1, "", 9, false)))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("event number 9");
        assertThat(ReplyErrors.toException(new OperationUnsupported(1, "mergeSegmentsBatch", "")))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("mergeSegmentsBatch");
        assertThat(ReplyErrors.toException(new AuthTokenCheckFailed(1, "", AuthTokenCheckFailed.ErrorCode.TOKEN_EXPIRED)))
                .isInstanceOf(TokenExpiredException.class).isInstanceOf(RetriableException.class);
        assertThat(ReplyErrors.toException(new AuthTokenCheckFailed(1, "", AuthTokenCheckFailed.ErrorCode.TOKEN_CHECK_FAILED)))
                .isInstanceOf(AuthorizationException.class);
        assertThat(ReplyErrors.toException(new ErrorMessage(1, "kvt/0", "bad key length", ErrorMessage.ErrorCode.ILLEGAL_ARGUMENT_EXCEPTION)))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("bad key length");
        assertThat(ReplyErrors.toException(new ErrorMessage(1, "kvt/0", "boom", ErrorMessage.ErrorCode.UNSPECIFIED)))
                .isExactlyInstanceOf(SluiceException.class).hasMessageContaining("boom");
        assertThat(ReplyErrors.toException(new TableSegmentNotEmpty(1, "tbl", ""))).isInstanceOf(TableSegmentNotEmptyException.class);
        assertThat(ReplyErrors.toException(new TableKeyDoesNotExist(1, "tbl", ""))).isInstanceOf(NoSuchKeyException.class);
        assertThat(ReplyErrors.toException(new TableKeyBadVersion(1, "tbl", ""))).isInstanceOf(BadKeyVersionException.class);
    }

    @Test
    void rawClientTurnsErrorAndUnexpectedRepliesIntoExceptions() throws IOException {
        try (FakeSegmentStore store = new FakeSegmentStore((request, peer) -> {
            if (request instanceof GetStreamSegmentInfo g) {
                peer.send(g.segmentName().equals("missing") ? new NoSuchSegment(g.requestId(), "missing", "trace", -1)
                        : new SegmentCreated(g.requestId(), g.segmentName()));
            }
        }); ConnectionPool pool = new ConnectionPool(new TcpConnectionFactory())) {
            RawClient raw = new RawClient(pool);
            Deadline deadline = Deadline.after(Duration.ofSeconds(10));
            assertThatThrownBy(() -> raw.call(store.endpoint(), id -> new GetStreamSegmentInfo(id, "missing", ""),
                    StreamSegmentInfo.class, deadline)).isInstanceOf(NoSuchSegmentException.class);
            assertThatThrownBy(() -> raw.call(store.endpoint(), id -> new GetStreamSegmentInfo(id, "other", ""),
                    StreamSegmentInfo.class, deadline)).isInstanceOf(ProtocolException.class)
                    .hasMessageContaining("answered SEGMENT_CREATED where StreamSegmentInfo was expected");
            assertThatThrownBy(() -> raw.call(store.endpoint(), id -> new GetStreamSegmentInfo(id + 1, "x", ""), deadline))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must carry the request id");
        }
    }
}
