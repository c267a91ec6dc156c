package io.sluice.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

import io.sluice.wire.FrameCodec;
import io.sluice.wire.GetStreamSegmentInfo;
import io.sluice.wire.InvalidWireCommandException;
import io.sluice.wire.Reply;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WireProtocol;

/**
 * Plays one {@link FuzzInput} over a raw socket and checks the bytes the server sends back: they must be whole,
 * valid reply frames. Never blocks for long: connecting and each read time out, and a watchdog closes the socket
 * after {@link #HARD_LIMIT_MS} whatever it is doing (a write the server does not read blocks otherwise).
 */
final class FuzzClient {
    static final int CONNECT_TIMEOUT_MS = 3_000;
    static final int IDLE_MS = 250;
    static final int HARD_LIMIT_MS = 5_000;
    /** Replies beyond this many bytes are read and dropped without decoding. */
    private static final int MAX_DECODED = WireProtocol.MAX_WIRECOMMAND_SIZE + 64 * 1024;
    private static final byte[] SENTINEL = FrameCodec.encode(new GetStreamSegmentInfo(FuzzInputs.SENTINEL_ID,
            FuzzInputs.SEGMENTS.get(0), ""));

    /**
     * What happened on one connection.
     *
     * @param held the still-open socket of a {@link FuzzInput.Behaviour#HALF_OPEN} input (the caller closes it), or
     *     {@code null}
     * @param badReply what was wrong with the server's bytes, or {@code null}
     * @param replies the number of reply frames decoded
     */
    record Outcome(Socket held, String badReply, int replies) {
    }

    private final InetSocketAddress server;
    private final ScheduledExecutorService watchdog;

    FuzzClient(InetSocketAddress server, ScheduledExecutorService watchdog) {
        this.server = server;
        this.watchdog = watchdog;
    }

    /**
     * @param connected told the local port as soon as the connection is up (the server logs its peers by it)
     * @throws IOException if the server does not accept the connection
     */
    Outcome run(FuzzInput input, IntConsumer connected) throws IOException {
        Socket s = new Socket();
        try {
            s.connect(server, CONNECT_TIMEOUT_MS);
        } catch (IOException e) {
            closeQuietly(s);
            throw e;
        }
        connected.accept(s.getLocalPort());
        ScheduledFuture<?> kill = watchdog.schedule(() -> closeQuietly(s), HARD_LIMIT_MS, TimeUnit.MILLISECONDS);
        boolean held = false;
        try {
            s.setSoTimeout(IDLE_MS);
            FuzzInput.Behaviour behaviour = input.behaviour();
            boolean reads = behaviour == FuzzInput.Behaviour.READ_REPLIES
                    || behaviour == FuzzInput.Behaviour.HALF_CLOSE;
            send(s, input, reads);
            Outcome outcome = switch (behaviour) {
                case READ_REPLIES -> read(s);
                case HALF_CLOSE -> {
                    try {
                        s.shutdownOutput();
                    } catch (IOException e) {
                        // already closed by the server or the watchdog
                    }
                    yield read(s);
                }
                case HALF_OPEN -> {
                    held = !s.isClosed();
                    yield new Outcome(held ? s : null, null, 0);
                }
                case RESET -> {
                    try {
                        s.setSoLinger(true, 0);
                    } catch (SocketException e) {
                        // already closed
                    }
                    yield new Outcome(null, null, 0);
                }
                case NEVER_READ -> new Outcome(null, null, 0);
            };
            return outcome;
        } finally {
            kill.cancel(false);
            if (!held) {
                closeQuietly(s);
            }
        }
    }

    private static void send(Socket s, FuzzInput input, boolean sentinel) {
        try {
            OutputStream out = s.getOutputStream();
            for (byte[] w : input.writes()) {
                out.write(w);
                out.flush();
            }
            if (sentinel) {
                out.write(SENTINEL);
                out.flush();
            }
        } catch (IOException e) {
            // the server closed the connection (or the watchdog did): what it sent is still checked
        }
    }

    /** Reads replies until the sentinel's answer, the end of the stream, a pause of {@link #IDLE_MS} or the limit. */
    private static Outcome read(Socket s) {
        byte[] buf = new byte[64 * 1024];
        int filled = 0;
        int consumed = 0;
        long offset = 0;
        int replies = 0;
        boolean decoding = true;
        try {
            InputStream in = s.getInputStream();
            while (true) {
                if (filled == buf.length) {
                    if (consumed > 0) {
                        System.arraycopy(buf, consumed, buf, 0, filled - consumed);
                        filled -= consumed;
                        offset += consumed;
                        consumed = 0;
                    } else if (buf.length < MAX_DECODED) {
                        buf = Arrays.copyOf(buf, Math.min(MAX_DECODED, buf.length * 2));
                    } else {
                        decoding = false;
                        filled = 0;
                    }
                }
                int n = in.read(buf, filled, buf.length - filled);
                if (n < 0) {
                    break;
                }
                filled += n;
                if (!decoding) {
                    filled = 0;
                    continue;
                }
                ByteBuffer view = ByteBuffer.wrap(buf, consumed, filled - consumed);
                WireCommand c;
                while ((c = FrameCodec.decode(view)) != null) {
                    if (!(c instanceof Reply reply)) {
                        return new Outcome(null, "the server sent a request: " + c.type() + " at byte "
                                + (offset + consumed), replies);
                    }
                    consumed = view.position();
                    replies++;
                    if (reply.requestId() == FuzzInputs.SENTINEL_ID) {
                        return new Outcome(null, null, replies);
                    }
                }
            }
        } catch (InvalidWireCommandException e) {
            return new Outcome(null, "the server sent an invalid frame at byte " + (offset + consumed) + ": "
                    + e.getMessage(), replies);
        } catch (SocketTimeoutException e) {
            // a pause: the server has nothing more to say for now
        } catch (IOException e) {
            // closed or reset: by the server, or by the watchdog
        }
        return new Outcome(null, null, replies);
    }

    static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // nothing to do
        }
    }
}
