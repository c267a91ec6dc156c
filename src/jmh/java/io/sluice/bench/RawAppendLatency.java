package io.sluice.bench;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

import io.sluice.wire.AppendEncoder;
import io.sluice.wire.AppendSetup;
import io.sluice.wire.DataAppended;
import io.sluice.wire.FrameCodec;
import io.sluice.wire.Hello;
import io.sluice.wire.SetupAppend;
import io.sluice.wire.WireCommand;
import io.sluice.wire.WireOutput;
import io.sluice.wire.WireProtocol;

/**
 * The floor under an awaited write: one platform thread, one blocking socket, no pool, no virtual threads and no
 * hand-off between threads. It sets up an append on a segment, then times {@code samples} appends of one event
 * each, each sent (the same {@code AppendBlock} + {@code AppendBlockEnd} bytes Sluice's writer sends) and awaited
 * ({@code DataAppended}) before the next; the first {@code warm-up} are not counted. Any client's awaited write
 * against the same server costs at least this, so it bounds how far below another client's latency one can get.
 *
 * <pre>
 * java -cp target/benchmarks.jar io.sluice.bench.RawAppendLatency HOST PORT SEGMENT [SAMPLES] [SIZE] [WARM_UP]
 * </pre>
 * SEGMENT is a segment's qualified name, e.g. {@code scope/stream/0.#epoch.0} for the first segment of a stream
 * made with {@code ./sluice stream create scope/stream --segments 1}; the server must not ask for a token. Prints
 * one JSON line: p50, p90, p99 and mean in microseconds.
 */
public final class RawAppendLatency {
    private RawAppendLatency() {
    }

    /**
     * Runs the probe.
     *
     * @param args HOST PORT SEGMENT [SAMPLES] [SIZE] [WARM_UP]
     * @throws IOException if the connection fails
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 3) {
            System.err.println("usage: RawAppendLatency HOST PORT SEGMENT [SAMPLES] [SIZE] [WARM_UP]");
            System.exit(2);
        }
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        String segment = args[2];
        int samples = args.length > 3 ? Integer.parseInt(args[3]) : 20_000;
        int size = args.length > 4 ? Integer.parseInt(args[4]) : 100;
        int warmUp = args.length > 5 ? Integer.parseInt(args[5]) : 5_000;
        UUID writerId = UUID.randomUUID();
        try (Socket socket = new Socket()) {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), 10_000);
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            send(out, new Hello(WireProtocol.WIRE_VERSION, WireProtocol.OLDEST_COMPATIBLE_VERSION));
            send(out, new SetupAppend(1, writerId, segment, ""));
            long last = -1;
            while (true) {
                WireCommand reply = receive(in);
                if (reply instanceof AppendSetup setup) {
                    last = Math.max(0, setup.lastEventNumber());
                    break;
                }
                if (!(reply instanceof Hello)) {
                    throw new IOException("setting up the append on " + segment + " got " + reply);
                }
            }
            ByteBuffer payload = ByteBuffer.allocate(size);
            WireOutput block = new WireOutput(size + 256);
            long[] micros = new long[samples];
            for (int i = -warmUp; i < samples; i++) {
                long eventNumber = ++last;
                block.clear();
                AppendEncoder.writeBlock(block, writerId, List.of(payload), eventNumber, eventNumber + 1);
                long t0 = System.nanoTime();
                out.write(block.array(), 0, block.position());
                out.flush();
                while (true) {
                    WireCommand reply = receive(in);
                    if (reply instanceof DataAppended acked && acked.eventNumber() >= eventNumber) {
                        break;
                    }
                    if (!(reply instanceof DataAppended)) {
                        throw new IOException("append " + eventNumber + " to " + segment + " got " + reply);
                    }
                }
                if (i >= 0) {
                    micros[i] = (System.nanoTime() - t0) / 1000;
                }
            }
            Arrays.sort(micros);
            double mean = Arrays.stream(micros).average().orElse(0);
            System.out.printf("{\"samples\":%d,\"size\":%d,\"p50_us\":%d,\"p90_us\":%d,\"p99_us\":%d,\"mean_us\":%.1f}%n",
                    samples, size, rank(micros, 0.50), rank(micros, 0.90), rank(micros, 0.99), mean);
        }
    }

    private static long rank(long[] sorted, double p) {
        return sorted[Math.max(0, (int) Math.ceil(p * sorted.length) - 1)];
    }

    private static void send(OutputStream out, WireCommand command) throws IOException {
        out.write(FrameCodec.encode(command));
        out.flush();
    }

    private static WireCommand receive(DataInputStream in) throws IOException {
        byte[] frame = new byte[WireProtocol.HEADER_SIZE];
        in.readFully(frame);
        int length = ByteBuffer.wrap(frame).getInt(4);
        byte[] whole = Arrays.copyOf(frame, WireProtocol.HEADER_SIZE + length);
        in.readFully(whole, WireProtocol.HEADER_SIZE, length);
        return FrameCodec.decodeOne(whole);
    }
}
