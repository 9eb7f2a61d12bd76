package io.msgscope.driver.tcp;

import io.msgscope.core.SpecException;
import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.MiddleBox;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The raw-TCP relay as the tcp driver's middle box (issue 15): what the broker-probe agent runs. */
class TcpRelayTest {
    private static final int SIZE = 64;

    @Test
    void forwardsEveryByteInOrderTapsEveryMessageAndEndsWithTheSendersStream() throws Exception {
        MiddleBox relay = new TcpDriver().openMiddleBox(new DriverSpec("", 0, "", SIZE, 0, Map.of(), ""),
                "127.0.0.1", 0, 0);
        AtomicLong tapped = new AtomicLong();
        CompletableFuture<Void> forwarding = CompletableFuture.runAsync(() -> {
            try {
                relay.forward((buffer, offset, index) -> tapped.incrementAndGet());
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        int n = 5_000;
        byte[] sent = new byte[n * SIZE];
        for (int i = 0; i < sent.length; i++) {
            sent[i] = (byte) (i * 31 + 7);
        }
        try (Socket receiver = new Socket("127.0.0.1", relay.egressPort())) {
            Socket sender = new Socket("127.0.0.1", relay.ingressPort());
            CompletableFuture<Void> writing = CompletableFuture.runAsync(() -> {
                try (OutputStream o = sender.getOutputStream()) {
                    for (int off = 0; off < sent.length; off += 1000) { // writes that split messages
                        o.write(sent, off, Math.min(1000, sent.length - off));
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            byte[] got = new byte[sent.length];
            new DataInputStream(receiver.getInputStream()).readFully(got);
            writing.get(30, TimeUnit.SECONDS);
            assertArrayEquals(sent, got);
            forwarding.get(30, TimeUnit.SECONDS); // the sender's stream ended: forward returns
        } finally {
            relay.close();
        }
        assertEquals(n, relay.forwarded());
        assertEquals(n, tapped.get());
    }

    @Test
    void closingStopsAWaitingRelayWithoutAnError() throws Exception {
        MiddleBox relay = new TcpDriver().openMiddleBox(new DriverSpec("", 0, "", SIZE, 0, Map.of(), ""),
                "127.0.0.1", 0, 0);
        CompletableFuture<Void> forwarding = CompletableFuture.runAsync(() -> {
            try {
                relay.forward((buffer, offset, index) -> { });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(relay.ingressPort() > 0 && relay.egressPort() > 0 && relay.ingressPort() != relay.egressPort());
        relay.close();
        forwarding.get(30, TimeUnit.SECONDS); // no exception: closed while accepting is not a failure
        assertEquals(0, relay.forwarded());
    }

    @Test
    void directModeHasNoRelay() {
        SpecException e = assertThrows(SpecException.class, () -> new TcpDriver().openMiddleBox(
                new DriverSpec("", 0, "", SIZE, 0, Map.of("via", "direct"), ""), "127.0.0.1", 0, 0));
        assertEquals("--opt via", e.option());
    }
}
