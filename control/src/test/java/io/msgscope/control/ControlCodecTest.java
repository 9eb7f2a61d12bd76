package io.msgscope.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.msgscope.proto.Envelope;
import io.msgscope.proto.Hello;
import io.msgscope.proto.Role;
import io.msgscope.proto.RunSpec;
import io.msgscope.proto.Series;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;

class ControlCodecTest {

    @Test
    void envelopesSurviveTheWireInThreeByteFragments() {
        Envelope spec = Envelope.newBuilder().setSpec(RunSpec.newBuilder().setRunId("run-1").setCount(1_000_000)
                .setWarmupCount(50_000).setSize(64).setRate(12_345.5).setRandomPadding(true).setPinCpu(-1)
                .setConnectHost("127.0.0.1").setConnectPort(7601).setDrainTimeoutMs(2000).setSeed(-42)
                .setSendBatch(8)).build();
        Envelope hello = Envelope.newBuilder().setHello(Hello.newBuilder().setProtocolVersion(1)
                .setRole(Role.RELAY).setToolVersion("0.1.0")).build();
        long[] values = new long[1000];
        for (int i = 0; i < values.length; i++) {
            values[i] = i * 1_000_003L - 17;
        }
        Envelope chunk = Frames.chunk(Series.RECV_NS, 0, values, 0, values.length);

        EmbeddedChannel out = new EmbeddedChannel();
        ControlCodec.install(out.pipeline(), ControlCodec.DEFAULT_MAX_FRAME);
        out.writeOutbound(spec, hello, chunk);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (ByteBuf b = out.readOutbound(); b != null; b = out.readOutbound()) {
            wire.writeBytes(Wire.bytes(b));
        }
        assertFalse(out.finishAndReleaseAll());

        EmbeddedChannel in = new EmbeddedChannel();
        ControlCodec.install(in.pipeline(), ControlCodec.DEFAULT_MAX_FRAME);
        Wire.feed(in, wire.toByteArray(), 3);
        assertEquals(spec, in.readInbound());
        assertEquals(hello, in.readInbound());
        assertEquals(chunk, in.readInbound());
        assertNull(in.readInbound());
        assertFalse(in.finishAndReleaseAll());
    }

    @Test
    void emptyEnvelopeRoundTrips() {
        Envelope empty = Envelope.getDefaultInstance();
        byte[] wire = Wire.encode(empty);
        assertEquals(1, wire.length, "just a zero length prefix");
        assertEquals(java.util.List.of(empty), Wire.decode(wire));
    }
}
