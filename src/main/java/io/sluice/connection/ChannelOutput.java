package io.sluice.connection;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * The output stream of a non-blocking socket channel ({@link LedReader} reads it): writes everything given, waiting
 * on a selector of its own while the socket's send buffer is full. One writer at a time (the connection's write
 * claim and its writer thread take turns), so it needs no lock.
 */
final class ChannelOutput extends OutputStream {
    private final SocketChannel channel;
    private Selector writable;

    ChannelOutput(SocketChannel channel) {
        this.channel = channel;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        ByteBuffer src = ByteBuffer.wrap(b, off, len);
        while (src.hasRemaining()) {
            if (channel.write(src) == 0) {
                awaitWritable();
            }
        }
    }

    private void awaitWritable() throws IOException {
        if (writable == null) {
            writable = Selector.open();
            channel.register(writable, SelectionKey.OP_WRITE);
        }
        writable.select(1_000); // woken when the socket takes bytes again; the loop writes and checks again
        writable.selectedKeys().clear();
    }

    @Override
    public void close() throws IOException {
        try {
            channel.close();
        } finally {
            if (writable != null) {
                writable.close();
            }
        }
    }
}
