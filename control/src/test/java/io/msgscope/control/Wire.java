package io.msgscope.control;

import io.msgscope.proto.Envelope;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/** Test helper: encodes and decodes control frames with a channel that holds only the codec. */
final class Wire {
    private Wire() {
    }

    /** The bytes {@link ControlCodec} puts on the wire for {@code envs}. */
    static byte[] encode(Envelope... envs) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ControlCodec.install(ch.pipeline(), ControlCodec.DEFAULT_MAX_FRAME);
        for (Envelope env : envs) {
            ch.writeOutbound(env);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (ByteBuf buf = ch.readOutbound(); buf != null; buf = ch.readOutbound()) {
            out.writeBytes(bytes(buf));
        }
        ch.finishAndReleaseAll();
        return out.toByteArray();
    }

    /** Decodes whole frames; fails on a trailing partial frame. */
    static List<Envelope> decode(byte[] wire) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ControlCodec.install(ch.pipeline(), ControlCodec.DEFAULT_MAX_FRAME);
        ch.writeInbound(Unpooled.wrappedBuffer(wire));
        List<Envelope> envs = new ArrayList<>();
        for (Envelope env = ch.readInbound(); env != null; env = ch.readInbound()) {
            envs.add(env);
        }
        if (ch.finishAndReleaseAll()) {
            throw new AssertionError("trailing bytes after the decoded frames");
        }
        return envs;
    }

    /** Feeds {@code wire} inbound in pieces of at most {@code fragment} bytes. */
    static void feed(EmbeddedChannel ch, byte[] wire, int fragment) {
        for (int i = 0; i < wire.length; i += fragment) {
            int n = Math.min(fragment, wire.length - i);
            ch.writeInbound(Unpooled.copiedBuffer(wire, i, n));
        }
    }

    /** The readable bytes of {@code buf}, which is released. */
    static byte[] bytes(ByteBuf buf) {
        try {
            byte[] b = new byte[buf.readableBytes()];
            buf.readBytes(b);
            return b;
        } finally {
            buf.release();
        }
    }

    /** A varint32 as written by the length prepender. */
    static byte[] varint(int value) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while ((value & ~0x7f) != 0) {
            out.write((value & 0x7f) | 0x80);
            value >>>= 7;
        }
        out.write(value);
        return out.toByteArray();
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
