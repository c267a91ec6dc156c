package io.sluice.compat;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.grpc.ManagedChannel;
import io.sluice.controller.grpc.v1.ControllerServiceGrpc;
import io.sluice.controller.grpc.v1.ControllerServiceGrpc.ControllerServiceBlockingStub;
import io.sluice.controller.grpc.v1.CreateScopeStatus;
import io.sluice.controller.grpc.v1.CreateStreamStatus;
import io.sluice.controller.grpc.v1.NodeUri;
import io.sluice.controller.grpc.v1.ScalingPolicy;
import io.sluice.controller.grpc.v1.ScopeInfo;
import io.sluice.controller.grpc.v1.SegmentRanges;
import io.sluice.controller.grpc.v1.StreamConfig;
import io.sluice.controller.grpc.v1.StreamInfo;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.Hello;
import io.sluice.wire.StreamSegmentInfo;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WireCommandType;
import io.sluice.wire.WireProtocol;

/**
 * Proves the compatibility harness end to end with nothing but Sluice's generated controller stubs and wire codec:
 * the real Pravega 0.13 controller creates and finds a scope and a stream over gRPC, tells where the stream's
 * segment lives, and the segment store there answers Sluice's {@code Hello(17, 5)} with its own wire version 16 and
 * a {@code GetStreamSegmentInfo} with the new, empty segment.
 */
@CompatTest
@Timeout(120)
class RealPravegaSmokeTest {
    private static final int PRAVEGA_0_13_WIRE_VERSION = 16;
    private static final long CALL_DEADLINE_SECONDS = 30;
    private static final int READ_TIMEOUT_MILLIS = 30_000;

    private static ManagedChannel channel;

    @BeforeAll
    static void connect() {
        channel = RealPravega.controllerChannel();
    }

    @AfterAll
    static void disconnect() throws InterruptedException {
        if (channel != null) {
            channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /** A fresh stub per call: a stub's deadline is absolute. */
    private static ControllerServiceBlockingStub controller() {
        return ControllerServiceGrpc.newBlockingStub(channel).withDeadlineAfter(CALL_DEADLINE_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    void controllerCreatesAndFindsAScope() {
        ScopeInfo scope = ScopeInfo.newBuilder().setScope(RealPravega.uniqueName("sluice-smoke")).build();

        assertThat(controller().checkScopeExists(scope).getExists()).as("exists before creation").isFalse();
        assertThat(controller().createScope(scope).getStatus()).isEqualTo(CreateScopeStatus.Status.SUCCESS);
        assertThat(controller().checkScopeExists(scope).getExists()).as("exists after creation").isTrue();
        assertThat(controller().createScope(scope).getStatus()).isEqualTo(CreateScopeStatus.Status.SCOPE_EXISTS);
    }

    @Test
    void segmentStoreOfANewStreamSpeaksSluiceWire() throws IOException {
        String scopeName = RealPravega.uniqueName("sluice-smoke");
        String streamName = "stream";
        assertThat(controller().createScope(ScopeInfo.newBuilder().setScope(scopeName).build()).getStatus())
                .isEqualTo(CreateScopeStatus.Status.SUCCESS);
        StreamInfo stream = StreamInfo.newBuilder().setScope(scopeName).setStream(streamName).build();
        StreamConfig config = StreamConfig.newBuilder()
                .setStreamInfo(stream)
                .setScalingPolicy(ScalingPolicy.newBuilder()
                        .setScaleType(ScalingPolicy.ScalingPolicyType.FIXED_NUM_SEGMENTS)
                        .setMinNumSegments(1))
                .build();
        assertThat(controller().createStream(config).getStatus()).isEqualTo(CreateStreamStatus.Status.SUCCESS);

        SegmentRanges current = controller().getCurrentSegments(stream);
        assertThat(current.getSegmentRangesList()).hasSize(1);
        long segmentId = current.getSegmentRanges(0).getSegmentId().getSegmentId();
        assertThat(segmentId).as("the first segment of a new stream: epoch 0, number 0").isZero();
        NodeUri node = controller().getURI(current.getSegmentRanges(0).getSegmentId());
        assertThat(node.getEndpoint()).as("segment store advertised on loopback").isEqualTo("127.0.0.1");

        String segmentName = scopeName + "/" + streamName + "/" + (int) segmentId + ".#epoch." + (segmentId >>> 32);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(node.getEndpoint(), node.getPort()), READ_TIMEOUT_MILLIS);
            socket.setSoTimeout(READ_TIMEOUT_MILLIS);
            OutputStream out = socket.getOutputStream();
            DataInputStream in = new DataInputStream(socket.getInputStream());

            out.write(FrameCodec.encode(Hello.current()));
            out.flush();
            assertThat(readFrame(in)).isEqualTo(new Hello(PRAVEGA_0_13_WIRE_VERSION, WireProtocol.OLDEST_COMPATIBLE_VERSION));

            out.write(FrameCodec.encode(new GetStreamSegmentInfo(1, segmentName, current.getDelegationToken())));
            out.flush();
            WireCommand reply = readFrame(in);
            assertThat(reply).isInstanceOf(StreamSegmentInfo.class);
            StreamSegmentInfo info = (StreamSegmentInfo) reply;
            assertThat(info.requestId()).isEqualTo(1);
            assertThat(info.segmentName()).isEqualTo(segmentName);
            assertThat(info.exists()).isTrue();
            assertThat(info.isSealed()).isFalse();
            assertThat(info.writeOffset()).isZero();
        }
    }

    /** Reads one whole frame; the socket's read timeout bounds the wait. */
    private static WireCommand readFrame(DataInputStream in) throws IOException {
        int typeCode = in.readInt();
        int length = in.readInt();
        WireCommandType type = FrameCodec.checkHeader(typeCode, length);
        byte[] payload = new byte[length];
        in.readFully(payload);
        return FrameCodec.decodePayload(type, ByteBuffer.wrap(payload));
    }
}
