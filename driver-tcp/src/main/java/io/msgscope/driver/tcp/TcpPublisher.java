package io.msgscope.driver.tcp;

import io.msgscope.core.driver.Publisher;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;

/** Blocking writes of whole messages; the caller's buffer is written in place, nothing copied. */
final class TcpPublisher implements Publisher {
    private final SocketChannel channel;

    TcpPublisher(SocketChannel channel) {
        this.channel = channel;
    }

    @Override
    public void send(ByteBuffer buffer, int offset, int length) throws IOException {
        buffer.limit(offset + length).position(offset);
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
        buffer.clear(); // leave the whole buffer open for the next in-place header writes
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
