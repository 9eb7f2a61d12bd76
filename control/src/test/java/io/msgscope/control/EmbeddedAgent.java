package io.msgscope.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.msgscope.core.Version;
import io.msgscope.proto.Envelope;
import io.msgscope.proto.Hello;
import io.msgscope.proto.HelloAck;
import io.msgscope.proto.Role;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One control connection as a relay agent sees it, on an {@link EmbeddedChannel}: frames fed in
 * fragments of 2 bytes; frames the session writes (also from its worker thread) are captured as bytes
 * at the head of the pipeline into a thread-safe queue and decoded on the test thread.
 */
final class EmbeddedAgent implements AutoCloseable {
    static final int CAP = 4096;
    static final long WAIT_MS = 5_000;

    final EmbeddedChannel ch = new EmbeddedChannel();
    final LinkedBlockingQueue<byte[]> written = new LinkedBlockingQueue<>();
    final EmbeddedChannel decoder = new EmbeddedChannel();
    final AtomicInteger ended = new AtomicInteger();

    /** An agent whose roles come from {@code factory}, requiring {@code secret} when not null. */
    EmbeddedAgent(FakeRole.Factory factory, SharedSecret secret) {
        ch.pipeline().addLast("capture", new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                written.add(Wire.bytes((ByteBuf) msg));
                promise.setSuccess();
            }
        });
        ControlCodec.install(ch.pipeline(), CAP);
        ch.pipeline().addLast("session", new AgentSession(Role.RELAY, factory, ended::incrementAndGet, secret));
        ControlCodec.install(decoder.pipeline(), ControlCodec.DEFAULT_MAX_FRAME);
    }

    static Envelope hello(int version, Role role) {
        return Envelope.newBuilder().setHello(Hello.newBuilder().setProtocolVersion(version).setRole(role)
                .setToolVersion("9.9.9")).build();
    }

    void send(Envelope... envs) {
        Wire.feed(ch, Wire.encode(envs), 2);
    }

    /** The frames in one read, as one TCP segment would bring them. */
    void sendInOneRead(Envelope... envs) {
        sendRaw(Wire.encode(envs));
    }

    void sendRaw(byte[] bytes) {
        ch.writeInbound(Unpooled.wrappedBuffer(bytes));
    }

    /** The next frame the agent wrote, waiting up to a bounded deadline for the worker thread. */
    Envelope next() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (true) {
            Envelope env = decoder.readInbound();
            if (env != null) {
                return env;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                fail("no frame from the agent within " + WAIT_MS + " ms");
            }
            byte[] b = written.poll(left, TimeUnit.NANOSECONDS);
            if (b != null) {
                decoder.writeInbound(Unpooled.wrappedBuffer(b));
            }
        }
    }

    Envelope next(Envelope.BodyCase expected) throws InterruptedException {
        Envelope env = next();
        assertEquals(expected, env.getBodyCase(), () -> "got " + env);
        return env;
    }

    /** Runs the channel's pending tasks (close events are delivered as tasks) and reports closure. */
    boolean closed() {
        ch.runPendingTasks();
        return !ch.isOpen();
    }

    boolean nothingMoreWritten() {
        return written.isEmpty() && decoder.inboundMessages().isEmpty();
    }

    HelloAck handshake() throws InterruptedException {
        send(hello(Version.PROTOCOL, Role.RELAY));
        return next(Envelope.BodyCase.HELLO_ACK).getHelloAck();
    }

    @Override
    public void close() {
        ch.finishAndReleaseAll();
        decoder.finishAndReleaseAll();
    }
}
