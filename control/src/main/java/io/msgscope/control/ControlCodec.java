package io.msgscope.control;

import io.msgscope.proto.Envelope;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.protobuf.ProtobufDecoder;
import io.netty.handler.codec.protobuf.ProtobufEncoder;
import io.netty.handler.codec.protobuf.ProtobufVarint32LengthFieldPrepender;

/**
 * Netty's protobuf codec pipeline for the control channel (STYLE "The control channel"):
 * capped varint32 frame decoder → ProtobufDecoder(Envelope); length prepender → ProtobufEncoder.
 */
public final class ControlCodec {
    /** Default frame cap: trace chunks are 512 KiB, so 8 MiB leaves ample room. */
    public static final int DEFAULT_MAX_FRAME = 8 << 20;

    private ControlCodec() {
    }

    /** Before the peer has authenticated (issue 14): handshake frames are small, nothing bigger is buffered. */
    public static final int HANDSHAKE_MAX_FRAME = 64 << 10;

    /** Changes the frame cap of a pipeline {@link #install} set up (on its event loop). */
    public static void maxFrame(ChannelPipeline p, int maxFrame) {
        CappedVarint32FrameDecoder d = (CappedVarint32FrameDecoder) p.get("frame-decoder");
        if (d != null) {
            d.maxFrame(maxFrame);
        }
    }

    public static void install(ChannelPipeline p, int maxFrame) {
        p.addLast("frame-decoder", new CappedVarint32FrameDecoder(maxFrame));
        p.addLast("protobuf-decoder", new ProtobufDecoder(Envelope.getDefaultInstance()));
        p.addLast("frame-prepender", new ProtobufVarint32LengthFieldPrepender());
        p.addLast("protobuf-encoder", new ProtobufEncoder());
    }
}
