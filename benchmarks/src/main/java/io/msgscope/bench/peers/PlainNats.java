package io.msgscope.bench.peers;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Nats;

import java.time.Duration;

/**
 * The native peer for msgscope's NATS driver (issue 5): a plain jnats publish loop and a Dispatcher
 * subscriber on two connections, 1 → 1 on one subject, no measurement in the loop. There is no NATS
 * bench in Debian's packages or on Maven Central (the Go {@code nats bench} is not packaged), so
 * this loop is the reference. The publisher reuses one payload array: the best case for jnats.
 *
 * <pre>java -cp benchmarks.jar io.msgscope.bench.peers.PlainNats nats://127.0.0.1:4222 [count] [warmup] [size]</pre>
 * prints {@code sent= received= lost= send_msg_s= receive_msg_s=}; exit 1 on a connection failure.
 */
public final class PlainNats {
    private PlainNats() {
    }

    public static void main(String[] args) throws Exception {
        String url = args.length > 0 ? args[0] : "nats://127.0.0.1:4222";
        long[] s = PeerCount.sizes(args, 1);
        String subject = "peer." + Long.toHexString(System.nanoTime());
        PeerCount count = new PeerCount();
        try (Connection sub = Nats.connect(url); Connection pub = Nats.connect(url)) {
            Dispatcher d = sub.createDispatcher(m -> count.arrived(m.getData()[0]));
            d.subscribe(subject);
            sub.flush(Duration.ofSeconds(5));
            byte[] warm = new byte[(int) s[2]];
            warm[0] = 1;
            for (long i = 0; i < s[1]; i++) {
                pub.publish(subject, warm);
            }
            pub.flush(Duration.ofSeconds(30));
            count.await(true, s[1], 2000);
            byte[] msg = new byte[(int) s[2]];
            long t0 = System.nanoTime();
            for (long i = 0; i < s[0]; i++) {
                pub.publish(subject, msg);
            }
            pub.flush(Duration.ofSeconds(30));
            long sendNs = System.nanoTime() - t0;
            count.await(false, s[0], 2000);
            System.out.println(count.report(s[0], t0, sendNs));
        }
    }
}
