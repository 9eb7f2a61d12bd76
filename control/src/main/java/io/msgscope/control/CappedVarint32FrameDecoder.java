package io.msgscope.control;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;

import java.util.List;

/**
 * Varint32 length-prefixed frames, like Netty's ProtobufVarint32FrameDecoder but with a frame size
 * cap (Netty's has none): a peer announcing a frame above the cap is rejected before a single byte
 * of it is buffered.
 */
public final class CappedVarint32FrameDecoder extends ByteToMessageDecoder {
    private volatile int maxFrame;

    public CappedVarint32FrameDecoder(int maxFrame) {
        this.maxFrame = maxFrame;
    }

    /**
     * Changes the cap (issue 14: a small one until the peer has authenticated, the run's once it has).
     * Call it on the channel's event loop, between frames.
     */
    public void maxFrame(int maxFrame) {
        this.maxFrame = maxFrame;
    }

    public int maxFrame() {
        return maxFrame;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        int maxFrame = this.maxFrame;
        in.markReaderIndex();
        int length = 0;
        int shift = 0;
        int b;
        do {
            if (!in.isReadable()) {
                in.resetReaderIndex();
                return;
            }
            if (shift == 35) {
                throw new CorruptedFrameException("malformed varint32 frame length");
            }
            b = in.readByte();
            length |= (b & 0x7f) << shift;
            shift += 7;
        } while ((b & 0x80) != 0);
        if (length < 0 || length > maxFrame) {
            in.skipBytes(in.readableBytes());
            throw new TooLongFrameException("control frame of " + (length & 0xffffffffL)
                    + " bytes exceeds the cap of " + maxFrame + " bytes");
        }
        if (in.readableBytes() < length) {
            in.resetReaderIndex();
            return;
        }
        out.add(in.readRetainedSlice(length));
    }
}
