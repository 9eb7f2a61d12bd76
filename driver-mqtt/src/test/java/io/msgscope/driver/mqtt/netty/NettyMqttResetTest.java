package io.msgscope.driver.mqtt.netty;

import io.msgscope.core.driver.DriverSpec;
import io.msgscope.core.driver.Drivers;
import io.msgscope.core.driver.Publisher;
import io.netty.handler.codec.DecoderException;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLException;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Map;

import static io.msgscope.driver.mqtt.netty.NettyEngineCodecTest.connack;
import static io.msgscope.driver.mqtt.netty.NettyEngineCodecTest.feed;
import static io.msgscope.driver.mqtt.netty.NettyEngineCodecTest.opts;
import static io.msgscope.driver.mqtt.netty.NettyEngineCodecTest.outbound;
import static io.msgscope.driver.mqtt.netty.NettyEngineCodecTest.props;
import static io.msgscope.driver.mqtt.netty.NettyEngineCodecTest.settings;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * "The broker closed the connection" is judged from what the channel saw — the socket failing before any other
 * end — never from an exception's words: a real TCP reset from a broker that answers CONNACK and then aborts, a
 * reset worded in another language, and the failures that are not the broker closing (a malformed packet, TLS,
 * a DISCONNECT first, our own close).
 */
class NettyMqttResetTest {

    /** A broker that answers CONNECT with CONNACK, waits, then aborts the connection (SO_LINGER 0: a TCP RST). */
    @Test
    void aRealResetIsTheBrokerClosing() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread broker = new Thread(() -> {
                try (Socket c = server.accept()) {
                    NettyEngineFakeBrokerTest.read(new DataInputStream(c.getInputStream()));
                    c.getOutputStream().write(new byte[] {0x20, 0x02, 0x00, 0x00});
                    c.getOutputStream().flush();
                    Thread.sleep(300); // the client reads its CONNACK before the reset
                    c.setSoLinger(true, 0);
                } catch (IOException | InterruptedException ignored) {
                    // the test fails on the client's side
                }
            }, "resetting-mqtt-broker");
            broker.start();
            Publisher pub = Drivers.load().get("mqtt").openPublisher(new DriverSpec("", 0,
                    "tcp://127.0.0.1:" + server.getLocalPort(), 64, 0,
                    Map.of("engine", "netty", "version", "3", "qos", "1"), "t"));
            try (pub) {
                NettyMqttSession session = ((NettyMqttPublisher) pub).session;
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (session.lostWhy() == null && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertNotNull(session.lostWhy(), "the reset never reached the client");
                assertTrue(session.brokerClosed(), session.lostWhy());
            }
            broker.join(10_000);
        }
    }

    private static NettyMqttSession connected(EmbeddedChannel ch) throws IOException {
        NettyMqttSubscriber sub = new NettyMqttSubscriber(settings(false, opts(5, 1)), 64);
        sub.session.attach(ch);
        sub.session.sendConnect();
        outbound(ch);
        feed(ch, connack(5, 0, props()));
        sub.session.checkConnack();
        return sub.session;
    }

    @Test
    void aResetInOtherWordsIsTheBrokerClosingToo() throws IOException {
        EmbeddedChannel ch = new EmbeddedChannel();
        NettyMqttSession s = connected(ch);
        ch.pipeline().fireExceptionCaught(new SocketException("Verbindung vom Kommunikationspartner zurückgesetzt"));
        ch.runPendingTasks();
        assertTrue(s.brokerClosed(), s.lostWhy());
    }

    @Test
    void whatIsNotTheSocketFailingIsNotTheBrokerClosing() throws IOException {
        EmbeddedChannel malformed = new EmbeddedChannel();
        NettyMqttSession a = connected(malformed);
        malformed.pipeline().fireExceptionCaught(new DecoderException("bad remaining length"));
        assertFalse(a.brokerClosed(), a.lostWhy());

        EmbeddedChannel tls = new EmbeddedChannel();
        NettyMqttSession b = connected(tls);
        tls.pipeline().fireExceptionCaught(new SSLException("Connection reset"));
        assertFalse(b.brokerClosed(), b.lostWhy());

        EmbeddedChannel disconnected = new EmbeddedChannel();
        NettyMqttSession c = connected(disconnected);
        c.disconnectedBy(0x89, "the broker sent DISCONNECT with reason code 0x89");
        disconnected.pipeline().fireExceptionCaught(new SocketException("Connection reset"));
        assertFalse(c.brokerClosed(), c.lostWhy());

        EmbeddedChannel ours = new EmbeddedChannel();
        NettyMqttSession d = connected(ours);
        d.close();
        ours.pipeline().fireExceptionCaught(new SocketException("Connection reset"));
        assertFalse(d.brokerClosed(), d.lostWhy());
    }
}
