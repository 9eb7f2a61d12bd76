package io.msgscope.bench.peers;

import org.apache.qpid.protonj2.client.Client;
import org.apache.qpid.protonj2.client.Connection;
import org.apache.qpid.protonj2.client.ConnectionOptions;
import org.apache.qpid.protonj2.client.Delivery;
import org.apache.qpid.protonj2.client.DeliveryMode;
import org.apache.qpid.protonj2.client.Message;
import org.apache.qpid.protonj2.client.Receiver;
import org.apache.qpid.protonj2.client.ReceiverOptions;
import org.apache.qpid.protonj2.client.Sender;
import org.apache.qpid.protonj2.client.SenderOptions;

import java.net.URI;
import java.util.concurrent.TimeUnit;

/**
 * The native peer for msgscope's AMQP 1.0 driver (issue 19): a plain Qpid ProtonJ2 send loop and a receive loop on
 * two connections, 1 → 1 through one node, no measurement in the loop: the same client, the same transfer settlement
 * and credit as msgscope's defaults, nothing else. Unsettled (the default): every transfer waits for nobody, ProtonJ2
 * settles each on the broker's disposition; the receiver accepts each delivery. {@code settled}: pre-settled both ways.
 *
 * <pre>java -cp benchmarks.jar io.msgscope.bench.peers.PlainProtonJ2 amqp://guest:guest@127.0.0.1:5672 ADDRESS
 *     [count] [warmup] [size] [settled|unsettled] [credit]</pre>
 * ADDRESS is the node, e.g. RabbitMQ's {@code /queue/NAME} (the plugin declares it; delete it afterwards). Prints
 * {@code sent= received= lost= send_msg_s= receive_msg_s= delivered_msg_s=}; exit 1 on a connection failure.
 */
public final class PlainProtonJ2 {
    private PlainProtonJ2() {
    }

    public static void main(String[] args) throws Exception {
        URI uri = URI.create(args.length > 0 ? args[0] : "amqp://guest:guest@127.0.0.1:5672");
        String address = args[1];
        long[] s = PeerCount.sizes(args, 2);
        boolean settled = args.length > 5 && args[5].equals("settled");
        int credit = args.length > 6 ? Integer.parseInt(args[6]) : 1000;
        ConnectionOptions co = new ConnectionOptions();
        if (uri.getUserInfo() != null) {
            String[] up = uri.getUserInfo().split(":", 2);
            co.user(up[0]);
            co.password(up.length > 1 ? up[1] : "");
        }
        co.transportOptions().tcpNoDelay(true);
        DeliveryMode mode = settled ? DeliveryMode.AT_MOST_ONCE : DeliveryMode.AT_LEAST_ONCE;
        PeerCount count = new PeerCount();
        int port = uri.getPort() < 0 ? 5672 : uri.getPort();
        try (Client client = Client.create();
             Connection rc = client.connect(uri.getHost(), port, co);
             Connection sc = client.connect(uri.getHost(), port, co)) {
            Receiver receiver = rc.openReceiver(address, new ReceiverOptions().creditWindow(credit).autoAccept(false)
                    .deliveryMode(mode));
            receiver.openFuture().get(15, TimeUnit.SECONDS);
            Thread t = new Thread(() -> {
                try {
                    while (true) {
                        Delivery d = receiver.receive(5, TimeUnit.SECONDS);
                        if (d == null) {
                            return;
                        }
                        Message<byte[]> m = d.message();
                        count.arrived(m.body()[0]);
                        if (!settled) {
                            d.accept();
                        }
                    }
                } catch (Exception e) {
                    System.err.println("receiver: " + e);
                }
            }, "peer-receiver");
            t.setDaemon(true);
            t.start();
            Sender sender = sc.openSender(address, new SenderOptions().deliveryMode(mode));
            sender.openFuture().get(15, TimeUnit.SECONDS);
            byte[] warm = new byte[(int) s[2]];
            warm[0] = 1;
            Message<byte[]> wm = Message.create(warm);
            for (long i = 0; i < s[1]; i++) {
                sender.send(wm);
            }
            count.await(true, s[1], 2000);
            Message<byte[]> msg = Message.create(new byte[(int) s[2]]);
            long t0 = System.nanoTime();
            for (long i = 0; i < s[0]; i++) {
                sender.send(msg);
            }
            long sendNs = System.nanoTime() - t0;
            count.await(false, s[0], 2000);
            System.out.println(count.report(s[0], t0, sendNs));
        }
    }
}
